package secret

import "strings"

// urlPasswords finds the password of each scheme://user:password@host.
func urlPasswords(s string, out []span) []span {
	for from := 0; ; {
		i := strings.Index(s[from:], "://")
		if i < 0 {
			return out
		}
		info := from + i + 3
		from = info
		colon := -1
		for j := info; j < len(s); j++ {
			c := s[j]
			if c == '@' {
				if colon > info && j > colon+1 {
					out = append(out, span{colon + 1, j})
				}
				break
			}
			if c == '/' || c == '?' || c == '#' || c == '"' || c == '\'' || c <= ' ' {
				break
			}
			if c == ':' && colon < 0 {
				colon = j
			}
		}
	}
}

// assignments finds the values assigned to secret-looking names: name=v,
// name: v, name := v, name => v, with the name optionally quoted ("name":
// v in JSON) and v bare or quoted, unless v holds nothing secret (empty, a
// number, a boolean or null). A comparison (==) is not an assignment.
func assignments(s string, out []span) []span {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != ':' && c != '=' {
			continue
		}
		op := i + 1
		switch {
		case op < len(s) && s[op] == '=' && c == '=':
			i++ // ==
			continue
		case op < len(s) && (s[op] == '=' || s[op] == '>'):
			op++ // := or =>
		case c == ':' && op < len(s) && s[op] == ':':
			i++ // ::
			continue
		}
		if start, end := assignedValue(s, i, op); start >= 0 {
			out = append(out, span{start, end})
		}
	}
	return out
}

// assignedValue is the span of the value after the operator at [i, op),
// if the name before it looks secret.
func assignedValue(s string, i, op int) (int, int) {
	j := i
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
		j--
	}
	k := j
	for k > 0 && (isWordByte(s[k-1]) || s[k-1] == '.' || s[k-1] == '-') {
		k--
	}
	if k == j || !likelyName(s[k:j]) || !Name(s[k:j]) {
		return -1, -1
	}
	v := op
	for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
		v++
	}
	if v == len(s) {
		return -1, -1
	}
	start, end := v, v
	if q := s[v]; q == '"' || q == '\'' {
		start = v + 1
		end = start
		for end < len(s) && s[end] != q && s[end] != '\n' {
			end++
		}
	} else {
		for end < len(s) && !strings.ContainsRune(" \t\r\n\"',;&)}]", rune(s[end])) {
			end++
		}
	}
	if plainValue(s[start:end]) {
		return -1, -1
	}
	return start, end
}

// likelyName is a cheap test before Name's regexp: the name holds one of
// the words Name looks for.
func likelyName(n string) bool {
	l := strings.ToLower(n)
	for _, w := range []string{"token", "secret", "credential", "key", "passw", "private", "auth"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// plainValue reports a value that holds no secret: empty, a number, a
// boolean or null.
func plainValue(v string) bool {
	if v == "" || strings.Trim(v, "0123456789.") == "" {
		return true
	}
	switch strings.ToLower(v) {
	case "true", "false", "null", "none", "nil":
		return true
	}
	return false
}
