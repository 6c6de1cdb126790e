package mcpcoding_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sudocode/sudocode/internal/mcpcoding"
	"github.com/sudocode/sudocode/internal/workspace"
	"github.com/sudocode/sudocode/internal/workspace/wstest"
)

// view_image end to end (docs/coding-tools.md#view_image): both output forms
// over the SDK client (HTTP in process, stdio of the built binary) and on the
// raw wire.

// viFixture is a workspace of images (and impostors).
func viFixture(t *testing.T) (map[string][]byte, func(t *testing.T) string) {
	files := map[string][]byte{
		"img/small.png": wstest.PNG(t, wstest.Gradient(40, 30)),
		"img/photo.jpg": wstest.JPEG(t, wstest.Gradient(300, 150), 95),
		"img/anim.gif":  wstest.GIF(t, wstest.Gradient(64, 64)),
		"lies.jpg":      wstest.PNG(t, wstest.Gradient(8, 8)),
		"text.png":      []byte("not an image\n"),
	}
	return files, func(t *testing.T) string {
		dir := t.TempDir()
		for name, data := range files {
			p := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
}

// viCall calls view_image through the SDK client, checks the result
// invariants and the outputSchema, and returns structuredContent with the
// content items as JSON objects.
func viCall(t *testing.T, s *toolSession, args map[string]any) (map[string]any, []map[string]any) {
	t.Helper()
	r := sdkResult(t, s.cs, "view_image", args)
	if err := s.schemas["view_image"].Validate(r.StructuredContent); err != nil {
		t.Fatalf("structuredContent does not conform to the outputSchema: %v\n%v", err, r.StructuredContent)
	}
	return r.StructuredContent, r.Content
}

// viImageItem checks an mcp_image result's content: the image item first,
// the text mirror second and last; it returns the image's bytes.
func viImageItem(t *testing.T, sc map[string]any, content []map[string]any) []byte {
	t.Helper()
	if len(content) != 2 || content[0]["type"] != "image" || content[1]["type"] != "text" {
		t.Fatalf("content %v: want [image, text]", content)
	}
	if content[0]["mimeType"] != sc["mime_type"] {
		t.Fatalf("image item mimeType %v, structured mime_type %v", content[0]["mimeType"], sc["mime_type"])
	}
	b64, _ := content[0]["data"].(string)
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatalf("image data is not base64: %v", err)
	}
	if _, has := sc["data_url"]; has {
		t.Fatalf("mcp_image result carries a data_url")
	}
	return data
}

// viDecoded checks that data is an image of the result's format, size
// and byte count.
func viDecoded(t *testing.T, sc map[string]any, data []byte) {
	t.Helper()
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("returned data does not decode: %v", err)
	}
	if "image/"+format != sc["mime_type"] || cfg.Width != num(t, sc["width"]) || cfg.Height != num(t, sc["height"]) ||
		len(data) != num(t, sc["bytes"]) {
		t.Fatalf("data is %s %dx%d, %d bytes; result %v", format, cfg.Width, cfg.Height, len(data), sc)
	}
}

func TestToolsViewImage(t *testing.T) {
	t.Parallel()
	files, setup := viFixture(t)
	runToolCases(t, setup, []toolCase{
		{"mcp_image: image item first, bytes as on disk", func(t *testing.T, s *toolSession) {
			sc, content := viCall(t, s, map[string]any{"path": "img/small.png"})
			wantFields(t, sc, map[string]any{"ok": true, "path": "img/small.png", "mime_type": "image/png",
				"width": 40.0, "height": 30.0, "resized": false, "bytes": float64(len(files["img/small.png"])),
				"original": map[string]any{"bytes": float64(len(files["img/small.png"])), "width": 40.0, "height": 30.0,
					"mime_type": "image/png"}})
			if data := viImageItem(t, sc, content); !bytes.Equal(data, files["img/small.png"]) {
				t.Fatal("image item differs from the file")
			}
			if len(strs(t, sc["warnings"])) != 0 {
				t.Fatalf("warnings %v", sc["warnings"])
			}
		}},
		{"mcp_image: resized JPEG", func(t *testing.T, s *toolSession) {
			sc, content := viCall(t, s, map[string]any{"path": "img/photo.jpg", "max_width": 100, "max_height": 100})
			wantFields(t, sc, map[string]any{"mime_type": "image/jpeg", "width": 100.0, "height": 50.0, "resized": true})
			orig := sc["original"].(map[string]any)
			if num(t, orig["width"]) != 300 || num(t, orig["height"]) != 150 || num(t, orig["bytes"]) != len(files["img/photo.jpg"]) {
				t.Fatalf("original %v", orig)
			}
			viDecoded(t, sc, viImageItem(t, sc, content))
		}},
		{"data_url: in structuredContent, content is the mirror only", func(t *testing.T, s *toolSession) {
			for _, c := range []struct {
				path, mime string
				args       map[string]any
			}{
				{"img/anim.gif", "image/gif", nil},
				{"lies.jpg", "image/png", nil},
				{"img/photo.jpg", "image/jpeg", map[string]any{"max_width": 30}},
			} {
				args := map[string]any{"path": c.path, "output": "data_url"}
				for k, v := range c.args {
					args[k] = v
				}
				sc, content := viCall(t, s, args)
				if len(content) != 1 || content[0]["type"] != "text" {
					t.Fatalf("%s: content %v: want the text mirror only", c.path, content)
				}
				url, _ := sc["data_url"].(string)
				prefix := "data:" + c.mime + ";base64,"
				if sc["mime_type"] != c.mime || !strings.HasPrefix(url, prefix) {
					t.Fatalf("%s: mime_type %v, data_url %.40q", c.path, sc["mime_type"], url)
				}
				data, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(url, prefix))
				if err != nil {
					t.Fatalf("%s: data_url payload: %v", c.path, err)
				}
				viDecoded(t, sc, data)
				if c.args == nil && !bytes.Equal(data, files[c.path]) {
					t.Fatalf("%s: data_url differs from the file", c.path)
				}
			}
		}},
		{"errors", func(t *testing.T, s *toolSession) {
			e := s.fail(t, "view_image", map[string]any{"path": "text.png"}, "BINARY_FILE")
			if !strings.Contains(e["message"].(string), "not a supported image") {
				t.Fatalf("message %q", e["message"])
			}
			s.fail(t, "view_image", map[string]any{"path": "img"}, "IS_DIRECTORY")
			s.fail(t, "view_image", map[string]any{"path": "nope.png"}, "NOT_FOUND")
			s.fail(t, "view_image", map[string]any{"path": "../x.png"}, "PATH_OUTSIDE_WORKSPACE")
			s.fail(t, "view_image", map[string]any{"path": "/etc/hostname"}, "ABSOLUTE_PATH_DENIED")

			// Over max_bytes with auto_resize off: OUTPUT_TOO_LARGE, and
			// no image item.
			sc, content := viCall(t, s, map[string]any{"path": "img/photo.jpg", "max_bytes": 1024, "auto_resize": false})
			if sc["ok"] != false || len(content) != 1 {
				t.Fatalf("result %v, content %d items", sc, len(content))
			}
			e = sc["error"].(map[string]any)
			if e["code"] != "OUTPUT_TOO_LARGE" || e["category"] != "validation" || e["retryable"] != false {
				t.Fatalf("error %v", e)
			}
			d := e["details"].(map[string]any)
			if num(t, d["bytes"]) != len(files["img/photo.jpg"]) || num(t, d["max_bytes"]) != 1024 ||
				d["resize_attempted"] != false || !reflect.DeepEqual(d["warnings"], []any{}) {
				t.Fatalf("details %v", d)
			}
		}},
	})
}

// TestViewImageWire: the exact content items on the wire, over HTTP and
// stdio.
func TestViewImageWire(t *testing.T) {
	t.Parallel()
	files, setup := viFixture(t)
	dir := setup(t)
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.FS.Close() })
	newSrv := func(t *testing.T) *mcpcoding.Server {
		s := mcpcoding.New(root, mcpcoding.Options{Version: testVersion, ViewImage: true})
		t.Cleanup(func() { s.Close(context.Background()) })
		return s
	}
	check := func(t *testing.T, c client) {
		initialize(t, c)
		r := decodeResult(t, toolCall(t, c, "view_image", map[string]any{"path": "img/small.png"}))
		want := map[string]any{"type": "image", "mimeType": "image/png",
			"data": base64.StdEncoding.EncodeToString(files["img/small.png"])}
		if len(r.Content) != 2 || !reflect.DeepEqual(r.Content[0], want) || r.Content[1]["type"] != "text" {
			t.Fatalf("content %v", r.Content)
		}
		if _, has := r.StructuredContent["data_url"]; has {
			t.Fatal("data_url in mcp_image mode")
		}
		r = decodeResult(t, toolCall(t, c, "view_image", map[string]any{"path": "img/small.png", "output": "data_url"}))
		if len(r.Content) != 1 || r.StructuredContent["data_url"] != "data:image/png;base64,"+want["data"].(string) {
			t.Fatalf("data_url result %v", r)
		}
	}
	t.Run("http", func(t *testing.T) {
		srv := httptest.NewServer(newSrv(t).HTTPHandler())
		t.Cleanup(srv.Close)
		check(t, &httpClient{url: srv.URL + "/mcp"})
	})
	t.Run("stdio", func(t *testing.T) {
		check(t, newStdio(t, newSrv(t)))
	})
}
