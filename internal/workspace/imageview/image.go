// Package imageview is view_image (docs/coding-tools.md#view_image): a
// workspace image identified by its content and scaled down to the limits.
package imageview

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"math"

	"github.com/sudocode/sudocode/internal/workspace"
	"golang.org/x/image/draw"
	"golang.org/x/image/webp"
)

// view_image (docs/coding-tools.md#view_image).

const (
	imageDefaultMaxBytes = 5242880
	imageDefaultMaxSide  = 2000
	// Files past these limits are refused before anything is decoded: a
	// decoder allocates by the header's dimensions, not the file's size.
	imageMaxFileBytes = 64 << 20
	imageMaxPixels    = 100_000_000
	// imageResizeRounds bounds the shrink-to-fit-max_bytes loop.
	imageResizeRounds = 8
)

// Image MIME types.
const (
	MimePNG  = "image/png"
	MimeGIF  = "image/gif"
	MimeJPEG = "image/jpeg"
	MimeWebP = "image/webp"
)

// Options are view_image's inputs. Zero limits take the profile's
// defaults.
type Options struct {
	Path       string
	MaxBytes   int
	MaxWidth   int
	MaxHeight  int
	AutoResize bool
}

// Info is what the magic bytes tell of an image.
type Info struct {
	Mime          string
	Width, Height int
}

// Size describes image data.
type Size struct {
	Bytes    int    `json:"bytes"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	MimeType string `json:"mime_type"`
}

// Result is view_image's result (docs/coding-tools.md#view_image) without the ways
// the data is returned (an image content item or a data URL), which are
// the tool's.
type Result struct {
	Path     string   `json:"path" jsonschema:"Canonical workspace-relative path"`
	MimeType string   `json:"mime_type" jsonschema:"Type of the returned data, from its content"`
	Bytes    int      `json:"bytes" jsonschema:"Size of the returned data"`
	Width    int      `json:"width"`
	Height   int      `json:"height"`
	Resized  bool     `json:"resized"`
	Original Size     `json:"original" jsonschema:"The image as stored"`
	Warnings []string `json:"warnings"`
	// Data is the image data to return.
	Data []byte `json:"-"`
}

// View reads a workspace image, identified by its content only, and
// returns it with its description. Over the limits and with AutoResize it scales the image
// down to fit them (re-encoded as the same format where Go has an
// encoder, WebP as PNG); data still over MaxBytes is OUTPUT_TOO_LARGE.
func View(r *workspace.Root, o Options) (*Result, error) {
	if o.MaxBytes <= 0 {
		o.MaxBytes = imageDefaultMaxBytes
	}
	if o.MaxWidth <= 0 {
		o.MaxWidth = imageDefaultMaxSide
	}
	if o.MaxHeight <= 0 {
		o.MaxHeight = imageDefaultMaxSide
	}
	res, err := r.Existing(o.Path)
	if err != nil {
		return nil, err
	}
	f, err := r.OpenRegular(res.Rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tooLarge := func(n int64, why string) error {
		return workspace.Errorf(workspace.CodeOutputTooLarge, map[string]any{"path": res.Rel, "bytes": int(n), "max_bytes": o.MaxBytes,
			"resize_attempted": false, "warnings": []string{}},
			"image too large: %s %s; not decoded", res.Rel, why)
	}
	if fi, err := f.Stat(); err == nil && fi.Size() > imageMaxFileBytes {
		return nil, tooLarge(fi.Size(), fmt.Sprintf("is %d bytes, over the %d-byte limit", fi.Size(), imageMaxFileBytes))
	}
	data, err := io.ReadAll(io.LimitReader(f, imageMaxFileBytes+1))
	if err != nil {
		return nil, workspace.Errorf(workspace.CodeInternal, map[string]any{"path": res.Rel}, "cannot read %s: %v", res.Rel, err)
	}
	if len(data) > imageMaxFileBytes { // grew since the stat
		return nil, tooLarge(int64(len(data)), fmt.Sprintf("is over the %d-byte limit", imageMaxFileBytes))
	}
	info, ok := Sniff(data)
	if !ok {
		return nil, workspace.Errorf(workspace.CodeBinaryFile, map[string]any{"path": res.Rel},
			"not a supported image: %s is not PNG, JPEG, GIF or WebP by its content; view blocked", res.Rel)
	}
	if int64(info.Width)*int64(info.Height) > imageMaxPixels {
		return nil, tooLarge(int64(len(data)), fmt.Sprintf("is %dx%d pixels, over the %d-pixel limit",
			info.Width, info.Height, imageMaxPixels))
	}

	warnings := []string{}
	out, outInfo, resized, attempted := data, info, false, false
	overBytes := len(data) > o.MaxBytes
	overBox := info.Width > o.MaxWidth || info.Height > o.MaxHeight
	switch {
	case (overBytes || overBox) && o.AutoResize:
		attempted = true
		b, ri, warns, err := resizeImage(data, info, o.MaxWidth, o.MaxHeight, o.MaxBytes)
		warnings = append(warnings, warns...)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("resizing failed (%v); the original image is returned", err))
		} else {
			out, outInfo, resized = b, ri, true
		}
	case overBox:
		warnings = append(warnings, fmt.Sprintf("image is %dx%d, over max_width/max_height %dx%d; auto_resize is off",
			info.Width, info.Height, o.MaxWidth, o.MaxHeight))
	}
	if len(out) > o.MaxBytes {
		msg := "image too large: %s is %d bytes, over max_bytes %d"
		if attempted {
			msg += " even after resizing"
		} else if !o.AutoResize {
			msg += " (auto_resize is off)"
		}
		return nil, workspace.Errorf(workspace.CodeOutputTooLarge, map[string]any{"path": res.Rel, "bytes": len(out), "max_bytes": o.MaxBytes,
			"resize_attempted": attempted, "warnings": warnings}, msg, res.Rel, len(out), o.MaxBytes)
	}
	return &Result{Path: res.Rel, MimeType: outInfo.Mime, Bytes: len(out), Width: outInfo.Width, Height: outInfo.Height,
		Resized: resized, Original: Size{Bytes: len(data), Width: info.Width, Height: info.Height, MimeType: info.Mime},
		Warnings: warnings, Data: out}, nil
}

// Sniff identifies PNG, GIF, JPEG and WebP data by its magic bytes
// and reads the dimensions from the header (PNG's IHDR, GIF's logical
// screen, JPEG's SOF segment, WebP's VP8X/VP8/VP8L chunk). Zero
// dimensions do not qualify.
func Sniff(b []byte) (Info, bool) {
	var (
		info Info
		ok   bool
	)
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		info, ok = sniffPNG(b)
	case bytes.HasPrefix(b, []byte("GIF87a")) || bytes.HasPrefix(b, []byte("GIF89a")):
		if len(b) >= 10 {
			info = Info{MimeGIF, int(binary.LittleEndian.Uint16(b[6:])), int(binary.LittleEndian.Uint16(b[8:]))}
			ok = true
		}
	case bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}):
		info, ok = sniffJPEG(b)
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		info, ok = sniffWebP(b)
	}
	if !ok || info.Width <= 0 || info.Height <= 0 {
		return Info{}, false
	}
	return info, true
}

func sniffPNG(b []byte) (Info, bool) {
	// Signature, then the IHDR chunk: length, type, width, height.
	if len(b) < 24 || string(b[12:16]) != "IHDR" {
		return Info{}, false
	}
	w, h := binary.BigEndian.Uint32(b[16:]), binary.BigEndian.Uint32(b[20:])
	if w > math.MaxInt32 || h > math.MaxInt32 {
		return Info{}, false
	}
	return Info{MimePNG, int(w), int(h)}, true
}

// sniffJPEG walks the marker segments from SOI to the first SOF.
func sniffJPEG(b []byte) (Info, bool) {
	i := 2
	for i < len(b) {
		if b[i] != 0xFF {
			return Info{}, false
		}
		for i < len(b) && b[i] == 0xFF { // fill bytes
			i++
		}
		if i >= len(b) {
			break
		}
		m := b[i]
		i++
		switch {
		case m == 0x01 || m == 0xD8 || (m >= 0xD0 && m <= 0xD7): // no length
			continue
		case m == 0xD9 || m == 0xDA: // EOI or SOS before any SOF
			return Info{}, false
		}
		if i+2 > len(b) {
			break
		}
		n := int(binary.BigEndian.Uint16(b[i:]))
		if n < 2 {
			return Info{}, false
		}
		if m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC { // SOFn
			if n < 7 || i+7 > len(b) { // length, precision, height, width
				break
			}
			h, w := binary.BigEndian.Uint16(b[i+3:]), binary.BigEndian.Uint16(b[i+5:])
			return Info{MimeJPEG, int(w), int(h)}, true
		}
		i += n
	}
	return Info{}, false
}

// sniffWebP reads the first chunk of a RIFF WEBP file.
func sniffWebP(b []byte) (Info, bool) {
	if len(b) < 20 {
		return Info{}, false
	}
	fourcc, p := string(b[12:16]), b[20:]
	u24 := func(x []byte) int { return int(x[0]) | int(x[1])<<8 | int(x[2])<<16 }
	switch fourcc {
	case "VP8X": // flags, 3 reserved bytes, canvas width-1 and height-1 (24 bits each)
		if len(p) < 10 {
			return Info{}, false
		}
		return Info{MimeWebP, u24(p[4:]) + 1, u24(p[7:]) + 1}, true
	case "VP8 ": // frame tag (3 bytes), start code 9D 01 2A, 14-bit width and height
		if len(p) < 10 || p[3] != 0x9D || p[4] != 0x01 || p[5] != 0x2A {
			return Info{}, false
		}
		w, h := binary.LittleEndian.Uint16(p[6:])&0x3FFF, binary.LittleEndian.Uint16(p[8:])&0x3FFF
		return Info{MimeWebP, int(w), int(h)}, true
	case "VP8L": // signature 0x2F, then 14-bit width-1 and height-1
		if len(p) < 5 || p[0] != 0x2F {
			return Info{}, false
		}
		v := binary.LittleEndian.Uint32(p[1:])
		return Info{MimeWebP, int(v&0x3FFF) + 1, int(v>>14&0x3FFF) + 1}, true
	}
	return Info{}, false
}

// resizeImage decodes data, scales it down to fit the box and re-encodes
// it; while the result is over maxBytes it steps JPEG quality down, then
// the size, a bounded number of times. It returns the smallest encoding
// it made (which may still be over maxBytes) with its info.
func resizeImage(data []byte, info Info, maxW, maxH, maxBytes int) (out []byte, outInfo Info, warnings []string, err error) {
	defer func() {
		if p := recover(); p != nil { // a decoder or encoder choking on crafted input
			out, err = nil, fmt.Errorf("%s codec failure: %v", info.Mime, p)
		}
	}()
	src, gifPalette, warnings, err := decodeImage(data, info)
	if err != nil {
		return nil, Info{}, warnings, err
	}
	b := src.Bounds()
	if b.Dx() <= 0 || b.Dy() <= 0 {
		return nil, Info{}, warnings, errors.New("decoded an empty image")
	}
	outMime := info.Mime
	if outMime == MimeWebP {
		outMime = MimePNG
		warnings = append(warnings, "converted WebP to PNG: no WebP encoder is available")
	}
	w, h := fitBox(b.Dx(), b.Dy(), maxW, maxH)
	for round := 0; ; round++ {
		scaled := scaleImage(src, w, h)
		var enc []byte
		for _, q := range jpegQualities(outMime) {
			if enc, err = encodeImage(scaled, outMime, q, gifPalette); err != nil {
				return nil, Info{}, warnings, err
			}
			if len(enc) <= maxBytes {
				break
			}
		}
		if out == nil || len(enc) < len(out) {
			out, outInfo = enc, Info{outMime, w, h}
		}
		if len(enc) <= maxBytes || round+1 >= imageResizeRounds || (w == 1 && h == 1) {
			return out, outInfo, warnings, nil
		}
		// Bytes grow about with the area: shrink both sides by the root
		// of the excess, with a margin.
		f := min(0.9, math.Sqrt(float64(maxBytes)/float64(len(enc)))*0.95)
		w, h = max(1, int(float64(w)*f)), max(1, int(float64(h)*f))
	}
}

// jpegQualities are the qualities tried in turn at one size; other
// formats have one encoding (quality 0 stands for none).
func jpegQualities(mime string) []int {
	if mime == MimeJPEG {
		return []int{85, 70, 55, 40}
	}
	return []int{0}
}

// decodeImage decodes data; a GIF yields its first frame on its logical
// screen and that frame's palette, for re-encoding.
func decodeImage(data []byte, info Info) (image.Image, color.Palette, []string, error) {
	rd := bytes.NewReader(data)
	switch info.Mime {
	case MimePNG:
		m, err := png.Decode(rd)
		return m, nil, nil, err
	case MimeJPEG:
		m, err := jpeg.Decode(rd)
		return m, nil, nil, err
	case MimeWebP:
		// The decoder checks a VP8X canvas against its frame.
		m, err := webp.Decode(rd)
		return m, nil, nil, err
	case MimeGIF:
		g, err := gif.DecodeAll(rd)
		if err != nil {
			return nil, nil, nil, err
		}
		if len(g.Image) == 0 {
			return nil, nil, nil, errors.New("gif: no frames")
		}
		var warnings []string
		if len(g.Image) > 1 {
			warnings = append(warnings, fmt.Sprintf("animated GIF: only the first of its %d frames is kept", len(g.Image)))
		}
		first := g.Image[0]
		canvas := image.NewRGBA(image.Rect(0, 0, g.Config.Width, g.Config.Height))
		draw.Draw(canvas, first.Bounds(), first, first.Bounds().Min, draw.Src)
		return canvas, first.Palette, warnings, nil
	}
	return nil, nil, nil, fmt.Errorf("no decoder for %s", info.Mime)
}

// fitBox scales w×h down, preserving the aspect ratio, to fit maxW×maxH;
// a size that fits is kept.
func fitBox(w, h, maxW, maxH int) (int, int) {
	if w <= maxW && h <= maxH {
		return w, h
	}
	if int64(w)*int64(maxH) >= int64(h)*int64(maxW) { // the width binds
		return maxW, min(maxH, max(1, int((int64(h)*int64(maxW)+int64(w)/2)/int64(w))))
	}
	return min(maxW, max(1, int((int64(w)*int64(maxH)+int64(h)/2)/int64(h)))), maxH
}

// scaleImage scales src to w×h with a Catmull-Rom filter (a copy when the
// size is unchanged); grayscale stays grayscale.
func scaleImage(src image.Image, w, h int) image.Image {
	r := image.Rect(0, 0, w, h)
	var dst draw.Image
	if _, gray := src.(*image.Gray); gray {
		dst = image.NewGray(r)
	} else {
		dst = image.NewRGBA(r)
	}
	if sb := src.Bounds(); sb.Dx() == w && sb.Dy() == h {
		draw.Draw(dst, r, src, sb.Min, draw.Src)
	} else {
		draw.CatmullRom.Scale(dst, r, src, sb, draw.Src, nil)
	}
	return dst
}

// encodeImage encodes m as mime: JPEG at quality q, GIF on pal (or the
// Plan 9 palette) with Floyd-Steinberg dithering, PNG at best compression.
func encodeImage(m image.Image, mime string, q int, pal color.Palette) ([]byte, error) {
	var buf bytes.Buffer
	var err error
	switch mime {
	case MimeJPEG:
		err = jpeg.Encode(&buf, m, &jpeg.Options{Quality: q})
	case MimeGIF:
		if len(pal) == 0 || len(pal) > 256 {
			pal = palette.Plan9
		}
		p := image.NewPaletted(m.Bounds(), pal)
		draw.FloydSteinberg.Draw(p, p.Bounds(), m, m.Bounds().Min)
		err = gif.Encode(&buf, p, nil)
	case MimePNG:
		err = (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, m)
	default:
		err = fmt.Errorf("no encoder for %s", mime)
	}
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
