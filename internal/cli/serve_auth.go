package cli

import (
	"errors"
	"fmt"
	"log/slog"
	"net"

	"github.com/spf13/pflag"

	"github.com/sudocode/sudocode/internal/mcpx"
)

// The servers that run code — serve (the coding tools and the agent
// orchestrator) and mcp agent over HTTP — need a token on loopback too.

// noAuthHelp is what --no-auth gives away, said in its help.
const noAuthHelp = "serve without a bearer token: any local process, any user on this machine and any web page that gets past the Origin check can then run commands as you (loopback only)"

// noAuthWarning is said at start with --no-auth.
const noAuthWarning = "serving WITHOUT a token (--no-auth): any local process, any user on this machine and any web page that gets past the Origin check can run commands as you through this server; drop --no-auth to require the token"

// codeAuth is how a server that runs code authenticates: --no-auth, and
// where its token comes from.
type codeAuth struct {
	noAuth bool
	// keptIn is the file of the user's token when it serves (no token or
	// token file configured); "" otherwise.
	keptIn string
}

func (c *codeAuth) register(fs *pflag.FlagSet) {
	fs.BoolVar(&c.noAuth, "no-auth", false, noAuthHelp)
}

// settle decides the token of a server that runs code at addr: the
// configured one (--token or SUDOCODE_TOKEN, or a token file), else on a
// loopback address the user's token kept in the state directory, made on
// first use, which it sets as f's token. A network address needs a
// configured token (the user's own is for this machine). With --no-auth
// there is none: refused beside a configured token and for an address
// that is not loopback.
func (c *codeAuth) settle(env IO, f *transportFlags, addr string, logger *slog.Logger) error {
	token, tokenFile := env.orEnv(f.token, "SUDOCODE_TOKEN"), env.orEnv(f.tokenFile, "SUDOCODE_TOKEN_FILE")
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil // the address is refused where it is checked, with its own message
	}
	loopback := mcpx.IsLoopback(host)
	if c.noAuth {
		if token != "" || tokenFile != "" {
			return usageError{errors.New("--no-auth with a token (--token, --token-file, SUDOCODE_TOKEN or SUDOCODE_TOKEN_FILE): choose one; unset the token to serve without one")}
		}
		if !loopback {
			return usageError{fmt.Errorf("refusing --no-auth on %s: without a token only a loopback address may be served (e.g. 127.0.0.1:%s)", addr, portOf(addr))}
		}
		logger.Warn(noAuthWarning)
		return nil
	}
	if token != "" || tokenFile != "" {
		return nil
	}
	if !loopback {
		return usageError{fmt.Errorf("refusing to listen on %s without a bearer token: bind 127.0.0.1, or set --token (or SUDOCODE_TOKEN) or --token-file (or SUDOCODE_TOKEN_FILE); the token kept for loopback is not used on a network address", addr)}
	}
	path, err := mcpx.UserTokenFile()
	if err != nil {
		return err
	}
	token, made, err := mcpx.UserToken(path)
	if err != nil {
		return err
	}
	if made {
		logger.Info("made the server's token; it is kept for the next start", "file", path)
	}
	f.token, c.keptIn = token, path
	return nil
}

func portOf(addr string) string {
	if _, port, err := net.SplitHostPort(addr); err == nil {
		return port
	}
	return "0"
}
