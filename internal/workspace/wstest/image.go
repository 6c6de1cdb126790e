package wstest

import (
	"bytes"
	"image"
	"image/color"
	"image/color/palette"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"testing"
)

// Gradient is a w×h image whose every pixel differs from its neighbours
// (it compresses like a photograph, not like a flat colour).
func Gradient(w, h int) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			m.Set(x, y, color.RGBA{uint8(x * 255 / max(1, w-1)), uint8(y * 255 / max(1, h-1)), 128, 255})
		}
	}
	return m
}

// PNG encodes m as PNG.
func PNG(t testing.TB, m image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// JPEG encodes m as JPEG of quality q.
func JPEG(t testing.TB, m image.Image, q int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, m, &jpeg.Options{Quality: q}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// GIF encodes frames as a GIF (animated when there are several).
func GIF(t testing.TB, frames ...image.Image) []byte {
	t.Helper()
	g := &gif.GIF{}
	for _, m := range frames {
		p := image.NewPaletted(m.Bounds(), palette.Plan9)
		draw.Draw(p, p.Bounds(), m, m.Bounds().Min, draw.Src)
		g.Image = append(g.Image, p)
		g.Delay = append(g.Delay, 10)
	}
	var b bytes.Buffer
	if err := gif.EncodeAll(&b, g); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
