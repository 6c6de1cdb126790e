package mcpcoding

import (
	"context"
	"encoding/base64"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sudocode/sudocode/internal/workspace/imageview"
)

type viewImageIn struct {
	Path       string `json:"path" jsonschema:"Workspace-relative image path" schema:"minLength=1"`
	MaxBytes   int    `json:"max_bytes,omitempty" jsonschema:"Largest image data to return" schema:"default=5242880,min=1024,max=10485760"`
	MaxWidth   int    `json:"max_width,omitempty" jsonschema:"Widest image to return, in pixels" schema:"default=2000,min=1,max=10000"`
	MaxHeight  int    `json:"max_height,omitempty" jsonschema:"Tallest image to return, in pixels" schema:"default=2000,min=1,max=10000"`
	AutoResize bool   `json:"auto_resize,omitempty" jsonschema:"Scale down images over the limits" schema:"default=true"`
	Output     string `json:"output,omitempty" jsonschema:"mcp_image: an image content item; data_url: a data URL in the structured result" schema:"default=mcp_image,enum=mcp_image|data_url"`
}

// viewImageOut is view_image's result: the image as an image content item
// before the text mirror, or as a data URL in the structured result.
type viewImageOut struct {
	imageview.Result
	DataURL string `json:"data_url,omitempty" jsonschema:"The image as a data URL (output data_url)"`
	// image is the content item (output mcp_image).
	image *mcp.ImageContent
}

func (o *viewImageOut) contentItems() []mcp.Content {
	if o.image == nil {
		return nil
	}
	return []mcp.Content{o.image}
}

func (s *Server) viewImage() tool {
	return define("view_image", "Return a workspace image (PNG, JPEG, GIF or WebP) for viewing, resized to fit limits.",
		hints("View image", true, false, true, false),
		func(ctx context.Context, in viewImageIn) (*viewImageOut, error) {
			img, err := imageview.View(s.root, imageview.Options{Path: in.Path, MaxBytes: in.MaxBytes,
				MaxWidth: in.MaxWidth, MaxHeight: in.MaxHeight, AutoResize: in.AutoResize})
			if err != nil {
				return nil, err
			}
			out := &viewImageOut{Result: *img}
			if in.Output == "data_url" {
				out.DataURL = "data:" + img.MimeType + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
			} else {
				// The data goes once: as the image item (the SDK writes it
				// in base64), not also as data_url.
				out.image = &mcp.ImageContent{Data: img.Data, MIMEType: img.MimeType}
			}
			return out, nil
		})
}
