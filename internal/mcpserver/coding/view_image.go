package coding

import (
	"context"
	"encoding/base64"

	"github.com/sudocode/sudocode/internal/workspace"
)

type viewImageIn struct {
	Path       string `json:"path"`
	MaxBytes   int    `json:"max_bytes"`
	MaxWidth   int    `json:"max_width"`
	MaxHeight  int    `json:"max_height"`
	AutoResize bool   `json:"auto_resize"`
	Output     string `json:"output"`
}

func (s *Server) viewImage() tool {
	return define("view_image", "Return a workspace image (PNG, JPEG, GIF or WebP) for viewing, resized to fit limits.",
		hints("View image", true, false, true, false),
		object([]string{"path"},
			"path", str("Workspace-relative image path").nonEmpty(),
			"max_bytes", integer("Largest image data to return", 1024, 10485760).def(5242880),
			"max_width", integer("Widest image to return, in pixels", 1, 10000).def(2000),
			"max_height", integer("Tallest image to return, in pixels", 1, 10000).def(2000),
			"auto_resize", boolean("Scale down images over the limits").def(true),
			"output", str("mcp_image: an image content item; data_url: a data URL in the structured result").def("mcp_image").oneOf("mcp_image", "data_url"),
		),
		map[string]any{"path": tString, "mime_type": tString, "bytes": tInt, "width": tInt, "height": tInt, "resized": tBool,
			"original": tObject, "data_url": tString},
		func(ctx context.Context, in viewImageIn) (map[string]any, error) {
			fields, data, err := workspace.ViewImage(s.root, workspace.ImageOptions{Path: in.Path, MaxBytes: in.MaxBytes,
				MaxWidth: in.MaxWidth, MaxHeight: in.MaxHeight, AutoResize: in.AutoResize})
			if err != nil {
				return nil, err
			}
			b64 := base64.StdEncoding.EncodeToString(data)
			mime, _ := fields["mime_type"].(string)
			if in.Output == "data_url" {
				fields["data_url"] = "data:" + mime + ";base64," + b64
			} else {
				// The image item goes before the text mirror; data_url
				// is left out so as not to ship the image twice.
				fields["_content"] = []any{map[string]any{"type": "image", "data": b64, "mimeType": mime}}
			}
			return fields, nil
		})
}
