package policy

import (
	"sort"
	"testing"
)

// TestEveryRule proves each rule of the table (table.go) by commands
// whose verdict depends on it, and that no rule is without one: a rule
// added to the table fails here until it has its cases.
func TestEveryRule(t *testing.T) {
	f := newFixture(t)
	cases := map[string][]row{
		// path operands and path-valued options
		"cat":   {{"cat /etc/hosts", escape}, {"cat README.md", none}},
		"cd":    {{"cd /", escape}},
		"chdir": {{"chdir /", escape}},
		"chmod": {{"chmod --reference=/etc/hosts README.md", escape}, {"chmod -R 755 src", destr}, {"chmod 755 src", none}},
		"chgrp": {{"chgrp --reference /etc/hosts README.md", escape}, {"chgrp --recursive staff src", destr}},
		"chown": {{"chown --reference=/etc/hosts README.md", escape}, {"chown --from /x me README.md", none}, {"chown -R me src", destr}},
		"cp":    {{"cp -t /tmp README.md", escape}, {"cp -S /x README.md b", none}},
		"mv":    {{"mv --target-directory=/tmp README.md", escape}, {"mv README.md b", none}},
		"ln":    {{"ln -s /etc/passwd p", escape}},
		"head":  {{"head -n 5 /etc/passwd", escape}, {"head -c /5 README.md", none}},
		"tail":  {{"tail --pid 1 /etc/x", escape}, {"tail --pid /1 README.md", none}},
		"less":  {{"less -o /tmp/log README.md", escape}, {"less -P /x README.md", none}},
		"more":  {{"more /etc/passwd", escape}, {"more -n /5 README.md", none}},
		"ls":    {{"ls /", escape}, {"ls -I /x src", none}},
		"mkdir": {{"mkdir -m 755 /tmp/x", escape}, {"mkdir -m /755 x", none}},
		"rmdir": {{"rmdir /tmp/x", escape}},
		"tee":   {{"echo x | tee /tmp/x", escape}},
		"rm":    {{"rm /tmp/x", escape}, {"rm -rf build", destr}, {"rm -r build", none}},
		"stat":  {{"stat /", escape}, {"stat -c /%n README.md", none}},
		"touch": {{"touch -r /etc/hosts README.md", escape}, {"touch -d /x README.md", none}},
		"wc":    {{"wc --files0-from=/etc/list", escape}},
		// a pattern first, then paths
		"grep":  {{"grep /etc README.md", none}, {"grep -e x /etc/passwd", escape}, {"grep -f /etc/p README.md", escape}},
		"egrep": {{"egrep x /etc/passwd", escape}, {"egrep /x README.md", none}},
		"fgrep": {{"fgrep x ../y", escape}, {"fgrep /x README.md", none}},
		"rg":    {{"rg --ignore-file /etc/ign x src", escape}, {"rg -g /x y src", none}},
		"sed":   {{"sed -f /tmp/s.sed README.md", escape}, {"sed s,/x,y, README.md", none}},
		"awk":   {{"awk '{print}' /etc/passwd", escape}, {"awk -F / '{print}' README.md", none}},
		"gawk":  {{"gawk -f /tmp/p.awk README.md", escape}},
		"mawk":  {{"mawk '{print}' /etc/passwd", escape}},
		"nawk":  {{"nawk /x/ README.md", none}, {"nawk /x/ /etc/passwd", escape}},
		// network clients
		"curl": {{"curl x", net}}, "wget": {{"wget x", net}}, "nc": {{"nc host 80", net}}, "ncat": {{"ncat host 80", net}},
		"netcat": {{"netcat host 80", net}}, "socat": {{"socat - TCP:host:80", net}}, "ssh": {{"ssh host", net}},
		"scp": {{"scp a host:b", net}}, "sftp": {{"sftp host", net}}, "ftp": {{"ftp host", net}}, "telnet": {{"telnet host", net}},
		// destructive by name
		"su": {{"su", destr}}, "mount": {{"mount img mnt", destr}}, "umount": {{"umount mnt", destr}},
		"shred": {{"shred README.md", destr}}, "mkfs*": {{"mkfs /dev/sdz", destr}, {"mkfs.ext4 img", destr}},
		// wrappers run their operands
		"command": {{"command rm -rf build", destr}}, "builtin": {{"builtin cd /", escape}},
		"nohup": {{"nohup rm -rf build", destr}}, "busybox": {{"busybox rm -rf build", destr}},
		"toybox": {{"toybox cat /etc/hosts", escape}}, "setsid": {{"setsid rm -rf build", destr}},
		"exec": {{"exec -a name rm -rf build", destr}},
		"nice": {{"nice -n 5 cat /etc/hosts", escape}, {"nice --adjustment 5 rm -rf build", destr}},
		// (the shell's time keyword is not the command: env runs the command)
		"time":    {{"env time -o /tmp/t ls", escape}, {"env time rm -rf build", destr}, {"env time -f /%e ls", none}},
		"timeout": {{"timeout 5 rm -rf build", destr}, {"timeout -s KILL 5 cat /etc/hosts", escape}, {"timeout /5 ls", none}},
		"stdbuf":  {{"stdbuf -o L rm -rf build", destr}, {"stdbuf -o /L ls", none}},
		"xargs":   {{"xargs -a /etc/list echo", escape}, {"xargs -n 1 rm -rf", destr}},
		"sudo":    {{"sudo ls", destr}, {"sudo -D /tmp ls", escape}},
		"doas":    {{"doas -u root cat /etc/hosts", escape}, {"doas ls", destr}},
		"pkexec":  {{"pkexec ls", destr}, {"pkexec --chdir=/tmp ls", escape}},
		// commands with a grammar of their own
		"bash": {{"bash -c 'echo'", inline}, {"bash /tmp/x.sh", escape}}, "sh": {{"sh -c 'echo'", inline}},
		"zsh": {{"zsh -c 'echo'", inline}}, "dash": {{"dash -c 'echo'", inline}}, "ksh": {{"ksh -c 'echo'", inline}},
		"mksh": {{"mksh -c 'echo'", inline}}, "ash": {{"ash -c 'echo'", inline}}, "rbash": {{"rbash ../x.sh", escape}},
		"fish":    {{"fish -C 'echo'", inline}, {"fish --init-command='echo'", inline}},
		"python*": {{"python3.12 -c 1", inline}, {"python -m pytest", none}, {"python3 /tmp/x.py", escape}},
		"node":    {{"node -e 1", inline}, {"node -- /tmp/x.js", escape}},
		"nodejs":  {{"nodejs -p 1", inline}, {"nodejs --require x tools/x.js", none}},
		"ruby":    {{"ruby -e 1", inline}, {"ruby -I /x tools/x.rb", none}, {"ruby /tmp/x.rb", escape}},
		"perl":    {{"perl -E 1", inline}, {"perl -I /x tools/x.pl", none}, {"perl /tmp/x.pl", escape}},
		"env":     {{"env -C /tmp ls", escape}, {"env -S 'rm -rf build'", destr}},
		"find":    {{"find . -delete", destr}, {"find / -name x", escape}, {"find . -exec curl x ;", net}},
		"git":     {{"git push", net}, {"git reset --hard", destr}, {"git --git-dir=/x status", escape}},
		"dd":      {{"dd of=img", destr}, {"dd if=/etc/passwd", escape}},
		"source":  {{"source /etc/profile", escape}, {"source tools/env.sh", none}},
		".":       {{". /etc/profile", escape}},
		"eval":    {{"eval rm -rf build", destr}},
		"trap":    {{"trap 'rm -rf build' EXIT", destr}, {"trap 'rm -rf build'", none}},
		"alias":   {{"alias x='cat /etc/hosts'", escape}},
	}

	keys := []string{}
	for n := range rules {
		keys = append(keys, n)
	}
	for _, fam := range families {
		keys = append(keys, fam.key)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if len(cases[k]) == 0 {
			t.Errorf("the rule %q has no test case", k)
		}
	}
	for k, rows := range cases {
		for _, r := range rows {
			if !usesRule(r.cmd, k) {
				t.Errorf("%q does not run a command of the rule %q", r.cmd, k)
			}
		}
		// no system setuid su, mount or sudo on this PATH
		f.run(t, rows, map[string]string{"PATH": f.bin}, false)
	}
}

// usesRule reports whether one of the commands cmd runs is classified by
// the rule of key.
func usesRule(cmd, key string) bool {
	a := &analysis{}
	a.script(cmd, 0)
	for _, c := range a.calls {
		if k, _, ok := lookup(c.name); ok && k == key {
			return true
		}
	}
	return false
}
