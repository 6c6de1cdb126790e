package ociimage_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/ociimage"
)

// instructions are a Dockerfile's instructions, continuation lines joined
// and comments dropped, as "KEYWORD rest".
func instructions(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") || (trimmed == "" && cur.Len() == 0) {
			continue
		}
		if rest, ok := strings.CutSuffix(trimmed, "\\"); ok {
			cur.WriteString(rest + " ")
			continue
		}
		cur.WriteString(trimmed)
		out = append(out, strings.Join(strings.Fields(cur.String()), " "))
		cur.Reset()
	}
	return out
}

// The Dockerfile, which cannot be built here (no Docker daemon), describes
// the image the builder makes: the go.mod's Go version, static -trimpath
// binaries with the version set, the same paths, user, environment, working
// directory, entrypoint and labels, on a base whose nonroot user is 65532.
func TestDockerfileAgrees(t *testing.T) {
	wd, _ := os.Getwd()
	mod, err := ociimage.FindModule(wd)
	if err != nil {
		t.Fatal(err)
	}
	ins := instructions(t, filepath.Join(mod, "Dockerfile"))
	has := func(prefix string) []string {
		var got []string
		for _, in := range ins {
			if strings.HasPrefix(in, prefix) {
				got = append(got, in)
			}
		}
		return got
	}
	one := func(keyword string) string {
		t.Helper()
		got := has(keyword + " ")
		if len(got) == 0 {
			t.Errorf("no %s", keyword)
			return ""
		}
		return got[len(got)-1] // the final stage's
	}

	gomod, err := os.ReadFile(filepath.Join(mod, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(gomod)
	if goVersion == nil {
		t.Fatal("no go directive in go.mod")
	}
	if want := "ARG GO_VERSION=" + string(goVersion[1]); !slices.Contains(ins, want) {
		t.Errorf("want %q (go.mod's Go), have %q", want, has("ARG GO_VERSION"))
	}
	froms := has("FROM ")
	if len(froms) != 2 || !strings.Contains(froms[0], "golang:${GO_VERSION}") ||
		froms[1] != "FROM gcr.io/distroless/static-debian12:nonroot" {
		t.Errorf("stages %q: want a golang:${GO_VERSION} builder, then distroless static nonroot", froms)
	}

	var build string
	for _, in := range has("RUN ") {
		if strings.Contains(in, "go build") {
			build = in
		}
	}
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", "-X " + ociimage.VersionVar + "=${VERSION}"} {
		if !strings.Contains(build, want) {
			t.Errorf("the go build step lacks %q: %s", want, build)
		}
	}
	for _, c := range ociimage.Commands {
		if !strings.Contains(build, "./cmd/"+c) {
			t.Errorf("the go build step does not build %s", c)
		}
	}
	if !slices.Contains(ins, "COPY --from=build /out/bin/ "+ociimage.BinDir+"/") {
		t.Errorf("the binaries are not copied to %s", ociimage.BinDir)
	}
	for _, d := range []string{ociimage.DataDir, ociimage.WorkDir} {
		if !strings.Contains(build, "/out/owned"+d) {
			t.Errorf("%s is not made in /out/owned", d)
		}
	}
	if !slices.Contains(ins, "COPY --from=build --chown="+ociimage.User+" /out/owned/ /") {
		t.Errorf("/out/owned is not copied as the user's")
	}

	if got, want := one("ENV"), "ENV "+strings.Join(ociimage.Env, " "); got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if got, want := one("USER"), "USER "+ociimage.User; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if got, want := one("WORKDIR"), "WORKDIR "+ociimage.WorkDir; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	entry, _ := json.Marshal([]string{ociimage.Entrypoint})
	if got, want := one("ENTRYPOINT"), "ENTRYPOINT "+string(entry); got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if has("CMD ") != nil {
		t.Errorf("a CMD: `docker run -i --rm IMAGE` must serve stdio with no arguments")
	}
	label := one("LABEL")
	for k := range ociimage.Labels(ociimage.Options{Source: "x", Version: "x", Revision: "x"}) {
		if !strings.Contains(label, k+"=") {
			t.Errorf("LABEL lacks %s", k)
		}
	}
}
