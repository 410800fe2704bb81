// Package headless starts the headless Chromium that the web UI's browser
// test (ui/browser_test.go) and its screenshots (internal/uishots) drive
// through chromedp.
package headless

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"

	"github.com/chromedp/chromedp"
)

// ExecPath returns the Chromium (or Chrome) binary to run: $AWA_CHROMIUM,
// else the first of the usual names on PATH.
func ExecPath() (string, error) {
	if p := os.Getenv("AWA_CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no Chromium found (chromium, chromium-browser, google-chrome on PATH, or $AWA_CHROMIUM): " +
		"run `make tools` (it installs Debian's chromium) or set AWA_CHROMIUM")
}

// Start starts the browser at path, headless and without the sandbox (CI
// runs as root, where Chromium's sandbox cannot start), with a window of
// width × height, and returns the context of its first tab; cancel stops
// it.
func Start(ctx context.Context, path string, width, height int) (context.Context, context.CancelFunc, error) {
	opts := append(slices.Clone(chromedp.DefaultExecAllocatorOptions[:]), chromedp.ExecPath(path),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true), chromedp.WindowSize(width, height))
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	tab, cancelTab := chromedp.NewContext(actx)
	cancel := func() { cancelTab(); cancelAlloc() }
	if err := chromedp.Do(tab); err != nil { // the first run starts the browser
		cancel()
		return nil, nil, err
	}
	return tab, cancel, nil
}
