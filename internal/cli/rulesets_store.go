package cli

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"runtime"

	"github.com/spf13/pflag"

	"github.com/sudocode/sudocode/internal/fault"
	"github.com/sudocode/sudocode/internal/rulesets"
	"github.com/sudocode/sudocode/internal/rulesets/sqlitestore"
	"github.com/sudocode/sudocode/internal/rulesets/valkeystore"
)

// storeFlags choose the ruleset store: Valkey when any Valkey setting is
// given, else the embedded store.
type storeFlags struct {
	dir, valkeyURL, valkeyHost, valkeyPort string
}

func (f *storeFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.dir, "store", "", "embedded store `DIR` (env SUDOCODE_RULESETS_DIR; default the user data dir, e.g. ~/.local/share/sudocode/rulesets)")
	fs.StringVar(&f.valkeyURL, "valkey-url", "", "Valkey `URL`, e.g. redis://user:pass@host:6379/0 or rediss://… (env VALKEY_URL)")
	fs.StringVar(&f.valkeyHost, "valkey-host", "", "Valkey `HOST` (env VALKEY_HOST; port 6379 unless set)")
	fs.StringVar(&f.valkeyPort, "valkey-port", "", "Valkey `PORT` (env VALKEY_PORT; host localhost unless set)")
}

// open returns the configured store. A configured but unreachable Valkey is
// an error: the server must not silently fall back to a private store.
func (f *storeFlags) open(ctx context.Context, env IO) (rulesets.Store, error) {
	url, host, port := env.orEnv(f.valkeyURL, "VALKEY_URL"), env.orEnv(f.valkeyHost, "VALKEY_HOST"), env.orEnv(f.valkeyPort, "VALKEY_PORT")
	if url != "" || host != "" || port != "" {
		if f.dir != "" {
			return nil, usageError{errors.New("--store is the embedded store; it cannot be combined with Valkey settings")}
		}
		if host == "" {
			host = "localhost"
		}
		if port == "" {
			port = "6379"
		}
		return valkeystore.Open(ctx, valkeystore.Config{
			URL:      url,
			Addr:     net.JoinHostPort(host, port),
			Username: env.Getenv("VALKEY_USERNAME"),
			Password: env.Getenv("VALKEY_PASSWORD"),
		})
	}
	dir := env.path(env.orEnv(f.dir, "SUDOCODE_RULESETS_DIR"))
	if dir == "" {
		data, err := dataDir(env)
		if err != nil {
			return nil, fault.Wrap(fault.Unavailable, err, "cannot find the user data directory; pass --store DIR")
		}
		dir = filepath.Join(data, "rulesets")
	}
	return sqlitestore.Open(ctx, dir)
}

// dataDir is the per-user directory for sudocode's data, in env's
// XDG_DATA_HOME or HOME (on Windows and macOS, the user's configuration
// directory, which the process's environment says).
func dataDir(env IO) (string, error) {
	if d := env.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(env.path(d), "sudocode"), nil
	}
	switch runtime.GOOS {
	case "windows", "darwin":
		d, err := os.UserConfigDir()
		return filepath.Join(d, "sudocode"), err
	}
	home := env.Getenv("HOME")
	if home == "" {
		return "", errors.New("$HOME is not defined")
	}
	return filepath.Join(home, ".local", "share", "sudocode"), nil
}
