package imageview

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/color/palette"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/image/webp"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/workspace"
	"github.com/sudocode/sudocode/internal/workspace/wstest"
)

// Helpers of the view_image tests (prefix img).

// imgNoise is a w×h image of random opaque pixels: it hardly compresses.
func imgNoise(w, h int, seed uint64) *image.RGBA {
	rng := rand.New(rand.NewPCG(seed, 1))
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range m.Pix {
		m.Pix[i] = uint8(rng.UintN(256))
		if i%4 == 3 {
			m.Pix[i] = 255
		}
	}
	return m
}

// imgBits writes a VP8L bit stream (least significant bit first).
type imgBits struct {
	buf []byte
	acc uint64
	n   uint
}

func (w *imgBits) put(v uint32, n uint) {
	w.acc |= uint64(v) << w.n
	w.n += n
	for w.n >= 8 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc >>= 8
		w.n -= 8
	}
}

func (w *imgBits) bytes() []byte {
	if w.n > 0 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc, w.n = 0, 0
	}
	return w.buf
}

// simpleCode writes a VP8L "simple" prefix code of one or two symbols:
// one symbol takes no bits per pixel, two take one (0: the first).
func (w *imgBits) simpleCode(syms ...uint32) {
	w.put(1, 1)
	w.put(uint32(len(syms)-1), 1)
	if syms[0] < 2 {
		w.put(0, 1)
		w.put(syms[0], 1)
	} else {
		w.put(1, 1)
		w.put(syms[0], 8)
	}
	if len(syms) == 2 {
		w.put(syms[1], 8)
	}
}

// imgVP8L encodes a lossless WebP bit stream of w×h opaque pixels, each
// channel one of two values chosen by a random bit (noisy: true) or fixed
// to the first (a solid colour, a few bytes whatever the size).
func imgVP8L(w, h int, noisy bool) []byte {
	var b imgBits
	b.put(0x2F, 8)
	b.put(uint32(w-1), 14)
	b.put(uint32(h-1), 14)
	b.put(0, 1) // alpha hint
	b.put(0, 3) // version
	b.put(0, 1) // no transform
	b.put(0, 1) // no colour cache
	b.put(0, 1) // no meta prefix codes
	if noisy {
		b.simpleCode(20, 220) // green
		b.simpleCode(30, 200) // red
		b.simpleCode(40, 180) // blue
	} else {
		b.simpleCode(20)
		b.simpleCode(30)
		b.simpleCode(40)
	}
	b.simpleCode(255) // alpha
	b.simpleCode(0)   // distance
	if noisy {
		rng := rand.New(rand.NewPCG(7, 7))
		for range w * h {
			b.put(rng.Uint32N(8), 3) // green, red, blue bits
		}
	}
	return b.bytes()
}

func imgChunk(fourcc string, payload []byte) []byte {
	c := append([]byte(fourcc), binary.LittleEndian.AppendUint32(nil, uint32(len(payload)))...)
	c = append(c, payload...)
	if len(payload)%2 == 1 {
		c = append(c, 0)
	}
	return c
}

func imgRIFF(chunks ...[]byte) []byte {
	body := []byte("WEBP")
	for _, c := range chunks {
		body = append(body, c...)
	}
	return append(append([]byte("RIFF"), binary.LittleEndian.AppendUint32(nil, uint32(len(body)))...), body...)
}

// imgWebP is a lossless WebP file (simple format, a VP8L chunk).
func imgWebP(w, h int, noisy bool) []byte { return imgRIFF(imgChunk("VP8L", imgVP8L(w, h, noisy))) }

// imgWebPX is the extended format: a VP8X chunk with the canvas size,
// then the VP8L chunk.
func imgWebPX(w, h int) []byte {
	x := make([]byte, 10)
	x[4], x[5], x[6] = byte(w-1), byte((w-1)>>8), byte((w-1)>>16)
	x[7], x[8], x[9] = byte(h-1), byte((h-1)>>8), byte((h-1)>>16)
	return imgRIFF(imgChunk("VP8X", x), imgChunk("VP8L", imgVP8L(w, h, false)))
}

// imgWebPLossyHeader is a lossy (VP8) WebP whose frame header gives w×h
// and whose data is garbage: sniffable, not decodable.
func imgWebPLossyHeader(w, h int) []byte {
	p := []byte{0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A}
	p = binary.LittleEndian.AppendUint16(p, uint16(w))
	p = binary.LittleEndian.AppendUint16(p, uint16(h))
	p = append(p, bytes.Repeat([]byte{0xAB}, 40)...)
	return imgRIFF(imgChunk("VP8 ", p))
}

// imgTinyWebP is a 1×1 lossless WebP, byte for byte: one pixel of
// R 30, G 20, B 40, opaque.
var imgTinyWebP = []byte{
	'R', 'I', 'F', 'F', 0x18, 0x00, 0x00, 0x00, 'W', 'E', 'B', 'P',
	'V', 'P', '8', 'L', 0x0c, 0x00, 0x00, 0x00,
	0x2f, 0x00, 0x00, 0x00, 0x00, 0x28, 0x45, 0x3d, 0x8a, 0xd2, 0xff, 0x00,
}

func imgRoot(t testing.TB, files map[string][]byte) *workspace.Root {
	t.Helper()
	m := map[string]string{}
	for k, v := range files {
		m[k] = string(v)
	}
	return twRoot(t, m)
}

func imgView(t testing.TB, r *workspace.Root, o Options) (map[string]any, []byte) {
	t.Helper()
	res, err := View(r, o)
	if err != nil {
		t.Fatalf("View(%+v): %v", o, err)
	}
	return wstest.Fields(res), res.Data
}

// imgCheck checks the result against the returned data: bytes, and the
// format and dimensions the data decodes to.
func imgCheck(t testing.TB, res map[string]any, data []byte, mime string, w, h int) {
	t.Helper()
	if res["mime_type"] != mime || res["width"] != w || res["height"] != h {
		t.Fatalf("result %s %vx%v, want %s %dx%d", res["mime_type"], res["width"], res["height"], mime, w, h)
	}
	if res["bytes"] != len(data) {
		t.Fatalf("bytes %v, returned %d", res["bytes"], len(data))
	}
	info, ok := Sniff(data)
	if !ok || info != (Info{mime, w, h}) {
		t.Fatalf("returned data sniffs as %+v (%v), want %s %dx%d", info, ok, mime, w, h)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || "image/"+format != mime || cfg.Width != w || cfg.Height != h {
		t.Fatalf("returned data decodes as %s %dx%d (%v), want %s %dx%d", format, cfg.Width, cfg.Height, err, mime, w, h)
	}
	if _, _, err := image.Decode(bytes.NewReader(data)); err != nil {
		t.Fatalf("returned data does not decode: %v", err)
	}
	if _, isList := res["warnings"].([]string); !isList {
		t.Fatalf("warnings %#v", res["warnings"])
	}
}

func imgWarned(t testing.TB, res map[string]any, sub string) {
	t.Helper()
	for _, w := range res["warnings"].([]string) {
		if strings.Contains(w, sub) {
			return
		}
	}
	t.Fatalf("no warning containing %q in %q", sub, res["warnings"])
}

func TestImageSniff(t *testing.T) {
	t.Parallel()
	jpg := wstest.JPEG(t, wstest.Gradient(33, 17), 90)
	// An APP1 segment and fill bytes before the tables and the SOF.
	app1 := append([]byte{0xFF, 0xE1, 0x00, 0x08}, "Exif\x00\x00"...)
	jpgApp := append(append(append([]byte{0xFF, 0xD8}, app1...), 0xFF, 0xFF), jpg[2:]...)
	gif87 := append([]byte("GIF87a"), 0x40, 0x01, 0xF0, 0x00, 0x80, 0, 0)
	for _, c := range []struct {
		name string
		data []byte
		want Info
	}{
		{"png", wstest.PNG(t, wstest.Gradient(123, 45)), Info{MimePNG, 123, 45}},
		{"png paletted", wstest.PNG(t, image.NewPaletted(image.Rect(0, 0, 7, 300), palette.Plan9)), Info{MimePNG, 7, 300}},
		{"jpeg", jpg, Info{MimeJPEG, 33, 17}},
		{"jpeg gray", wstest.JPEG(t, image.NewGray(image.Rect(0, 0, 640, 1)), 50), Info{MimeJPEG, 640, 1}},
		{"jpeg with APP1 and fill bytes", jpgApp, Info{MimeJPEG, 33, 17}},
		{"gif89a", wstest.GIF(t, wstest.Gradient(70, 80)), Info{MimeGIF, 70, 80}},
		{"gif87a", gif87, Info{MimeGIF, 320, 240}},
		{"webp lossless", imgWebP(300, 200, false), Info{MimeWebP, 300, 200}},
		{"webp lossless 1x1 literal", imgTinyWebP, Info{MimeWebP, 1, 1}},
		{"webp extended", imgWebPX(16384, 3), Info{MimeWebP, 16384, 3}},
		{"webp lossy", imgWebPLossyHeader(640, 480), Info{MimeWebP, 640, 480}},
	} {
		got, ok := Sniff(c.data)
		if !ok || got != c.want {
			t.Errorf("%s: %+v %v, want %+v", c.name, got, ok, c.want)
		}
	}
	noSOF := []byte{0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x04, 1, 2, 0xFF, 0xDA, 0x00, 0x02}
	for name, data := range map[string][]byte{
		"empty":                   nil,
		"text":                    []byte("just some text, not an image\n"),
		"png signature only":      []byte("\x89PNG\r\n\x1a\n"),
		"png without IHDR":        append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIDAT"), make([]byte, 8)...),
		"png 0 wide":              append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x00\x00\x00\x00\x00\x00\x05"), make([]byte, 5)...),
		"gif truncated":           []byte("GIF89a\x01"),
		"jpeg SOS before SOF":     noSOF,
		"jpeg truncated":          jpg[:20],
		"riff wave":               append([]byte("RIFF\x24\x00\x00\x00WAVEfmt "), make([]byte, 16)...),
		"webp unknown chunk":      imgRIFF(imgChunk("ABCD", make([]byte, 10))),
		"webp VP8L bad signature": imgRIFF(imgChunk("VP8L", []byte{0x2E, 0, 0, 0, 0})),
		"webp VP8 no start code":  imgRIFF(imgChunk("VP8 ", make([]byte, 10))),
		"elf":                     []byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00"),
	} {
		if got, ok := Sniff(data); ok {
			t.Errorf("%s: sniffed as %+v", name, got)
		}
	}
	// The generated and literal WebP files are valid for the decoder.
	if m, err := webp.Decode(bytes.NewReader(imgTinyWebP)); err != nil {
		t.Fatal(err)
	} else if c := color.NRGBAModel.Convert(m.At(0, 0)); c != (color.NRGBA{30, 20, 40, 255}) {
		t.Fatalf("tiny WebP pixel %v", c)
	}
	for _, data := range [][]byte{imgTinyWebP, imgWebP(5, 3, true), imgWebPX(4, 6)} {
		info, _ := Sniff(data)
		m, err := webp.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("webp %+v: %v", info, err)
		}
		if b := m.Bounds(); b.Dx() != info.Width || b.Dy() != info.Height {
			t.Fatalf("webp decodes as %v, sniffed %+v", b, info)
		}
	}
}

// TestViewImageFormats: each format within the limits comes back as it
// is, with its dimensions.
func TestViewImageFormats(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{
		"a.png":      wstest.PNG(t, wstest.Gradient(120, 80)),
		"b.jpg":      wstest.JPEG(t, wstest.Gradient(64, 48), 80),
		"c.gif":      wstest.GIF(t, wstest.Gradient(30, 40)),
		"d.webp":     imgWebP(50, 20, true),
		"e.webp":     imgWebPX(9, 7),
		"f.webp":     imgTinyWebP,
		"sub/g.jpeg": wstest.JPEG(t, image.NewGray(image.Rect(0, 0, 10, 10)), 80),
	}
	r := imgRoot(t, files)
	for _, c := range []struct {
		path, mime string
		w, h       int
	}{
		{"a.png", MimePNG, 120, 80}, {"b.jpg", MimeJPEG, 64, 48}, {"c.gif", MimeGIF, 30, 40},
		{"d.webp", MimeWebP, 50, 20}, {"e.webp", MimeWebP, 9, 7}, {"f.webp", MimeWebP, 1, 1},
		{"./sub//g.jpeg", MimeJPEG, 10, 10},
	} {
		res, data := imgView(t, r, Options{Path: c.path, AutoResize: true})
		rel := filepath.ToSlash(filepath.Clean(c.path))
		if res["path"] != rel || res["resized"] != false || len(res["warnings"].([]string)) != 0 {
			t.Fatalf("%s: %v", c.path, res)
		}
		if !bytes.Equal(data, files[rel]) {
			t.Fatalf("%s: returned data differs from the file", c.path)
		}
		if c.mime == MimeWebP {
			if res["mime_type"] != c.mime || res["width"] != c.w || res["height"] != c.h || res["bytes"] != len(data) {
				t.Fatalf("%s: %v", c.path, res)
			}
		} else {
			imgCheck(t, res, data, c.mime, c.w, c.h)
		}
		want := Size{Bytes: len(data), Width: c.w, Height: c.h, MimeType: c.mime}
		if !reflect.DeepEqual(res["original"], want) {
			t.Fatalf("%s: original %v, want %v", c.path, res["original"], want)
		}
	}
}

// TestViewImageExtensionLies: the content decides, never the name.
func TestViewImageExtensionLies(t *testing.T) {
	t.Parallel()
	pngData := wstest.PNG(t, wstest.Gradient(10, 20))
	r := imgRoot(t, map[string][]byte{
		"photo.jpg":   pngData,
		"anim.png":    wstest.GIF(t, wstest.Gradient(3, 4)),
		"noext":       wstest.JPEG(t, wstest.Gradient(5, 6), 80),
		"fake.png":    []byte("this is text, named like an image\n"),
		"fake.webp":   []byte("RIFF....WEBPnot really"),
		"empty.gif":   nil,
		"binary.jpeg": {0, 1, 2, 3, 0xFF, 0xD8, 0xFF},
	})
	res, data := imgView(t, r, Options{Path: "photo.jpg", AutoResize: true})
	imgCheck(t, res, data, MimePNG, 10, 20)
	res, data = imgView(t, r, Options{Path: "anim.png", AutoResize: true})
	imgCheck(t, res, data, MimeGIF, 3, 4)
	res, data = imgView(t, r, Options{Path: "noext", AutoResize: true})
	imgCheck(t, res, data, MimeJPEG, 5, 6)
	for _, p := range []string{"fake.png", "fake.webp", "empty.gif", "binary.jpeg"} {
		_, err := View(r, Options{Path: p, AutoResize: true})
		e := wstest.Code(t, err, "BINARY_FILE")
		if !strings.Contains(e.Msg, "not a supported image") || workspace.Classify(e).Category != workspace.CatValidation || e.Details["path"] != p {
			t.Fatalf("%s: %+v", p, e)
		}
	}
}

// TestViewImageResizeByDimensions: over max_width/max_height the image is
// scaled into the box, aspect ratio kept, in its own format (WebP as PNG).
func TestViewImageResizeByDimensions(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{
		"wide.png":  wstest.PNG(t, wstest.Gradient(300, 200)),
		"tall.jpg":  wstest.JPEG(t, wstest.Gradient(200, 400), 90),
		"gray.jpg":  wstest.JPEG(t, image.NewGray(image.Rect(0, 0, 500, 100)), 90),
		"img.gif":   wstest.GIF(t, wstest.Gradient(150, 150)),
		"anim.gif":  wstest.GIF(t, wstest.Gradient(120, 60), imgNoise(120, 60, 1)),
		"img.webp":  imgWebP(400, 100, true),
		"imgx.webp": imgWebPX(90, 300),
	}
	r := imgRoot(t, files)
	for _, c := range []struct {
		path         string
		maxW, maxH   int
		mime         string
		w, h         int
		origMime     string
		origW, origH int
		warn         string
	}{
		{"wide.png", 100, 100, MimePNG, 100, 67, MimePNG, 300, 200, ""},
		{"wide.png", 1000, 50, MimePNG, 75, 50, MimePNG, 300, 200, ""},
		{"tall.jpg", 100, 100, MimeJPEG, 50, 100, MimeJPEG, 200, 400, ""},
		{"tall.jpg", 150, 2000, MimeJPEG, 150, 300, MimeJPEG, 200, 400, ""},
		{"gray.jpg", 50, 50, MimeJPEG, 50, 10, MimeJPEG, 500, 100, ""},
		{"img.gif", 64, 64, MimeGIF, 64, 64, MimeGIF, 150, 150, ""},
		{"anim.gif", 60, 60, MimeGIF, 60, 30, MimeGIF, 120, 60, "animated GIF"},
		{"img.webp", 100, 100, MimePNG, 100, 25, MimeWebP, 400, 100, "WebP to PNG"},
		{"imgx.webp", 30, 30, MimePNG, 9, 30, MimeWebP, 90, 300, "WebP to PNG"},
		{"img.webp", 1, 1, MimePNG, 1, 1, MimeWebP, 400, 100, "WebP to PNG"},
	} {
		res, data := imgView(t, r, Options{Path: c.path, MaxWidth: c.maxW, MaxHeight: c.maxH, AutoResize: true})
		imgCheck(t, res, data, c.mime, c.w, c.h)
		if res["resized"] != true {
			t.Fatalf("%s: resized %v", c.path, res["resized"])
		}
		want := Size{Bytes: len(files[c.path]), Width: c.origW, Height: c.origH, MimeType: c.origMime}
		if !reflect.DeepEqual(res["original"], want) {
			t.Fatalf("%s: original %v, want %v", c.path, res["original"], want)
		}
		if c.warn != "" {
			imgWarned(t, res, c.warn)
		} else if len(res["warnings"].([]string)) != 0 {
			t.Fatalf("%s: warnings %q", c.path, res["warnings"])
		}
	}
	// Grayscale stays grayscale.
	_, data := imgView(t, r, Options{Path: "gray.jpg", MaxWidth: 50, MaxHeight: 50, AutoResize: true})
	if cfg, _, _ := image.DecodeConfig(bytes.NewReader(data)); cfg.ColorModel != color.GrayModel {
		t.Fatalf("gray JPEG re-encoded in colour")
	}
}

// TestViewImageResizeByBytes: within the box but over max_bytes, the
// image is re-encoded (JPEG at lower quality) and shrunk until it fits.
func TestViewImageResizeByBytes(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{
		"noise.png":  wstest.PNG(t, imgNoise(400, 300, 2)),
		"noise.jpg":  wstest.JPEG(t, imgNoise(600, 600, 3), 100),
		"noise.gif":  wstest.GIF(t, imgNoise(500, 400, 4)),
		"noise.webp": imgWebP(700, 500, true),
	}
	r := imgRoot(t, files)
	for _, c := range []struct {
		path, mime, origMime string
		w, h, maxBytes       int
	}{
		{"noise.png", MimePNG, MimePNG, 400, 300, 100_000},
		{"noise.jpg", MimeJPEG, MimeJPEG, 600, 600, 200_000},
		{"noise.jpg", MimeJPEG, MimeJPEG, 600, 600, 20_000},
		{"noise.gif", MimeGIF, MimeGIF, 500, 400, 50_000},
		{"noise.webp", MimePNG, MimeWebP, 700, 500, 30_000},
	} {
		if len(files[c.path]) <= c.maxBytes {
			t.Fatalf("%s: %d bytes is within max_bytes %d: no test", c.path, len(files[c.path]), c.maxBytes)
		}
		res, data := imgView(t, r, Options{Path: c.path, MaxBytes: c.maxBytes, AutoResize: true})
		if res["resized"] != true || len(data) > c.maxBytes || res["mime_type"] != c.mime {
			t.Fatalf("%s: %d bytes for max_bytes %d: %v", c.path, len(data), c.maxBytes, res)
		}
		w, h := res["width"].(int), res["height"].(int)
		imgCheck(t, res, data, c.mime, w, h)
		if w > c.w || h > c.h {
			t.Fatalf("%s: grew to %dx%d", c.path, w, h)
		}
		// The aspect ratio is kept, to the rounding of a side.
		if d := float64(w)/float64(h) - float64(c.w)/float64(c.h); d > 0.05 || d < -0.05 {
			t.Fatalf("%s: %dx%d from %dx%d", c.path, w, h, c.w, c.h)
		}
		o := res["original"].(Size)
		if o.Bytes != len(files[c.path]) || o.MimeType != c.origMime || o.Width != c.w || o.Height != c.h {
			t.Fatalf("%s: original %v", c.path, o)
		}
	}
	// A JPEG that only needs a lower quality keeps its size.
	res, data := imgView(t, r, Options{Path: "noise.jpg", MaxBytes: len(files["noise.jpg"]) / 2, AutoResize: true})
	if res["width"] != 600 || res["height"] != 600 || len(data) > len(files["noise.jpg"])/2 {
		t.Fatalf("quality step: %v", res)
	}
}

// TestViewImageTooLarge: data over max_bytes that cannot be (or may not
// be) brought under it is OUTPUT_TOO_LARGE with the profile's details.
func TestViewImageTooLarge(t *testing.T) {
	t.Parallel()
	noise := wstest.PNG(t, imgNoise(300, 300, 5))
	truncated := wstest.PNG(t, imgNoise(300, 300, 6))[:50_000] // header fine, data cut
	r := imgRoot(t, map[string][]byte{"noise.png": noise, "truncated.png": truncated})
	details := func(t *testing.T, e *fault.Error, bytes int, attempted bool) {
		t.Helper()
		if c := workspace.Classify(e); c.Category != workspace.CatValidation || c.Retryable {
			t.Fatalf("%+v", e)
		}
		for _, k := range []string{"bytes", "max_bytes", "resize_attempted", "warnings"} {
			if _, has := e.Details[k]; !has {
				t.Fatalf("details %v lack %s", e.Details, k)
			}
		}
		if bytes >= 0 && e.Details["bytes"] != bytes {
			t.Fatalf("details.bytes %v, want %d", e.Details["bytes"], bytes)
		}
		if e.Details["resize_attempted"] != attempted {
			t.Fatalf("details.resize_attempted %v, want %v", e.Details["resize_attempted"], attempted)
		}
		if _, isList := e.Details["warnings"].([]string); !isList {
			t.Fatalf("details.warnings %#v", e.Details["warnings"])
		}
	}

	t.Run("auto_resize off", func(t *testing.T) {
		_, err := View(r, Options{Path: "noise.png", MaxBytes: 1024})
		e := wstest.Code(t, err, "OUTPUT_TOO_LARGE")
		details(t, e, len(noise), false)
		if e.Details["max_bytes"] != 1024 {
			t.Fatalf("details %v", e.Details)
		}
	})
	t.Run("max_bytes too small to reach", func(t *testing.T) {
		_, err := View(r, Options{Path: "noise.png", MaxBytes: 10, AutoResize: true})
		e := wstest.Code(t, err, "OUTPUT_TOO_LARGE")
		details(t, e, -1, true)
		if n := e.Details["bytes"].(int); n <= 10 || n >= len(noise) {
			t.Fatalf("details.bytes %d: not the best attempt", n)
		}
	})
	t.Run("resize fails, original too large", func(t *testing.T) {
		_, err := View(r, Options{Path: "truncated.png", MaxBytes: 2048, AutoResize: true})
		e := wstest.Code(t, err, "OUTPUT_TOO_LARGE")
		details(t, e, len(truncated), true)
		if w := e.Details["warnings"].([]string); len(w) != 1 || !strings.Contains(w[0], "resizing failed") {
			t.Fatalf("warnings %q", w)
		}
	})
	t.Run("auto_resize off, over the box only", func(t *testing.T) {
		res, data := imgView(t, r, Options{Path: "noise.png", MaxWidth: 10, MaxHeight: 10})
		imgCheck(t, res, data, MimePNG, 300, 300)
		if res["resized"] != false || !bytes.Equal(data, noise) {
			t.Fatalf("%v", res)
		}
		imgWarned(t, res, "auto_resize is off")
	})
	t.Run("resize fails, original fits", func(t *testing.T) {
		r := imgRoot(t, map[string][]byte{"lossy.webp": imgWebPLossyHeader(3000, 20), "cut.png": truncated})
		for _, p := range []string{"lossy.webp", "cut.png"} {
			res, data := imgView(t, r, Options{Path: p, MaxBytes: 1 << 20, MaxWidth: 100, MaxHeight: 100, AutoResize: true})
			if res["resized"] != false || res["bytes"] != len(data) || res["width"] != 300 && res["width"] != 3000 {
				t.Fatalf("%s: %v", p, res)
			}
			imgWarned(t, res, "resizing failed")
			imgWarned(t, res, "original image is returned")
		}
	})
	t.Run("absurd dimensions refused before decoding", func(t *testing.T) {
		huge := wstest.PNG(t, image.NewGray(image.Rect(0, 0, 1, 1)))
		binary.BigEndian.PutUint32(huge[16:], 20000) // IHDR width
		binary.BigEndian.PutUint32(huge[20:], 20000) // and height: 400 megapixels
		r := imgRoot(t, map[string][]byte{"huge.png": huge})
		_, err := View(r, Options{Path: "huge.png", AutoResize: true})
		e := wstest.Code(t, err, "OUTPUT_TOO_LARGE")
		details(t, e, len(huge), false)
		if !strings.Contains(e.Msg, "pixel") {
			t.Fatalf("message %q", e.Msg)
		}
	})
	t.Run("absurd file size refused before reading", func(t *testing.T) {
		r := imgRoot(t, map[string][]byte{"big.png": wstest.PNG(t, wstest.Gradient(4, 4))})
		if err := os.Truncate(r.Join("big.png"), imageMaxFileBytes+1); err != nil { // sparse
			t.Fatal(err)
		}
		_, err := View(r, Options{Path: "big.png", AutoResize: true})
		details(t, wstest.Code(t, err, "OUTPUT_TOO_LARGE"), -1, false)
	})
}

// TestViewImagePathErrors: the path codes (docs/coding-tools.md#paths) and
// IS_DIRECTORY.
func TestViewImagePathErrors(t *testing.T) {
	t.Parallel()
	pngData := wstest.PNG(t, wstest.Gradient(2, 2))
	r := imgRoot(t, map[string][]byte{"dir/a.png": pngData})
	out := wstest.Outside(t, r.Path)
	if err := os.WriteFile(filepath.Join(out, "secret.png"), pngData, 0o644); err != nil {
		t.Fatal(err)
	}
	wstest.Symlink(t, r.Path, "escape.png", filepath.Join(out, "secret.png"))
	wstest.Symlink(t, r.Path, "escdir", out)
	wstest.Symlink(t, r.Path, "inside.png", "dir/a.png")
	for _, c := range []struct{ path, code string }{
		{"", "INVALID_ARGUMENT"},
		{"a\x00.png", "INVALID_ARGUMENT"},
		{"/etc/passwd", "ABSOLUTE_PATH_DENIED"},
		{"C:/x.png", "ABSOLUTE_PATH_DENIED"},
		{"../x.png", "PATH_OUTSIDE_WORKSPACE"},
		{"dir/../dir/a.png", "PATH_OUTSIDE_WORKSPACE"},
		{"missing.png", "NOT_FOUND"},
		{"dir/missing.png", "NOT_FOUND"},
		{"escape.png", "SYMLINK_ESCAPE"},
		{"escdir/secret.png", "SYMLINK_ESCAPE"},
		{"dir", "IS_DIRECTORY"},
		{".", "IS_DIRECTORY"},
	} {
		_, err := View(r, Options{Path: c.path, AutoResize: true})
		wstest.Code(t, err, c.code)
	}
	// A symlink inside the workspace is followed; the path is canonical.
	res, data := imgView(t, r, Options{Path: "inside.png", AutoResize: true})
	imgCheck(t, res, data, MimePNG, 2, 2)
	if res["path"] != "dir/a.png" {
		t.Fatalf("path %v", res["path"])
	}
}

func TestImageFitBox(t *testing.T) {
	t.Parallel()
	for _, c := range [][6]int{
		{300, 200, 100, 100, 100, 67},
		{200, 300, 100, 100, 67, 100},
		{100, 100, 100, 100, 100, 100},
		{50, 10, 100, 100, 50, 10},
		{10000, 1, 2000, 2000, 2000, 1},
		{1, 10000, 2000, 2000, 1, 2000},
		{3000, 2000, 2000, 2000, 2000, 1333},
		{401, 100, 100, 25, 100, 25},
	} {
		if w, h := fitBox(c[0], c[1], c[2], c[3]); w != c[4] || h != c[5] {
			t.Errorf("fitBox(%d, %d, %d, %d) = %d, %d, want %d, %d", c[0], c[1], c[2], c[3], w, h, c[4], c[5])
		}
	}
}

// twRoot opens a workspace holding files (wstest.Tree).
func twRoot(t testing.TB, files map[string]string) *workspace.Root {
	return wstest.Root(t, files, workspace.Open)
}
