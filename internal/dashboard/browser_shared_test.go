package dashboard_test

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestMain ends the Chromium the browser tests share, if one started.
func TestMain(m *testing.M) {
	code := m.Run()
	chrome.end()
	os.Exit(code)
}

// chrome is the one Chromium of the package's browser tests: each test
// opens a browser context of its own in it (its own cookies, storage,
// cache and window, as a new profile would give it) instead of starting
// Chromium again, which cost every test about a second of CPU.
var chrome sharedChrome

type sharedChrome struct {
	once    sync.Once
	ctx     context.Context // the browser's first tab; its children are the tests' contexts
	cancel  func()
	dataDir string
	err     error
}

// browserContext is a new browser context in the shared Chromium, started
// by the first call; cancel closes it (its tab and its storage).
func (c *sharedChrome) browserContext(t *testing.T, exe string) (context.Context, context.CancelFunc) {
	t.Helper()
	c.once.Do(func() {
		if c.dataDir, c.err = os.MkdirTemp("", "sudocode-chromium-"); c.err != nil {
			return
		}
		opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox,
			chromedp.DisableGPU, chromedp.UserDataDir(c.dataDir), chromedp.WindowSize(viewW, viewH))
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelCtx := chromedp.NewContext(alloc)
		c.ctx, c.cancel = ctx, func() { cancelCtx(); cancelAlloc() }
		c.err = chromedp.Do(ctx) // starts the browser
	})
	if c.err != nil {
		t.Fatalf("starting %s: %v", exe, c.err)
	}
	return chromedp.NewContext(c.ctx, chromedp.WithNewBrowserContext())
}

// end stops the shared Chromium and removes its profile.
func (c *sharedChrome) end() {
	if c.cancel != nil {
		c.cancel()
	}
	if c.dataDir != "" {
		os.RemoveAll(c.dataDir)
	}
}
