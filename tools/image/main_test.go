package main

import (
	"io"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "")
	c, err := parse(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.out != "dist/mcp-ruleset-server.tar" || c.oci != "" || c.tag != "mcp-ruleset-server:latest" || !c.opts.Created.IsZero() {
		t.Errorf("defaults %+v", c)
	}

	// -oci alone with -o "": only the layout.
	if c, err = parse([]string{"-o", "", "-oci", "out/oci"}, io.Discard); err != nil || c.out != "" || c.oci != "out/oci" {
		t.Errorf("-o '' -oci: %+v %v", c, err)
	}
	// -o "" without -oci would write nothing: the default stays.
	if c, err = parse([]string{"-o", ""}, io.Discard); err != nil || c.out == "" {
		t.Errorf("-o '': %+v %v", c, err)
	}

	t.Setenv("SOURCE_DATE_EPOCH", "1761733800")
	if c, err = parse(nil, io.Discard); err != nil || !c.opts.Created.Equal(time.Date(2025, 10, 29, 10, 30, 0, 0, time.UTC)) {
		t.Errorf("SOURCE_DATE_EPOCH: %v %v", c.opts.Created, err)
	}
	if c, err = parse([]string{"-created", "2024-01-02T03:04:05Z", "-arch", "arm64", "-version", "v1.2.3"}, io.Discard); err != nil ||
		c.opts.Created.Year() != 2024 || c.opts.Arch != "arm64" || c.opts.Version != "v1.2.3" {
		t.Errorf("flags: %+v %v", c, err)
	}
	for _, bad := range [][]string{{"-created", "yesterday"}, {"extra"}, {"-nope"}} {
		if _, err := parse(bad, io.Discard); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
