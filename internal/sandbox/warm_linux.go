package sandbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The warm box's protocol, over a SOCK_SEQPACKET socket pair between the
// server and the zygote (the supervisor's controlFD, the zygote's
// zygoteControlFD): the server sends a warmRequest with the command's
// stdin, stdout and stderr attached; the zygote answers a warmReply with
// Started and the command's pidfd attached, or ExecError; and, when the
// command and everything it left have ended, a warmReply with Exit.
const (
	controlFD       = 5
	zygoteControlFD = 4
	maxWarmMessage  = 1 << 20
)

type warmRequest struct {
	Path string   `json:"path"`
	Args []string `json:"args"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir,omitempty"`
	TTY  bool     `json:"tty,omitempty"` // stdin is the session's controlling terminal
}

type warmReply struct {
	Started   bool        `json:"started,omitempty"`
	ExecError string      `json:"exec_error,omitempty"`
	Exit      *exitStatus `json:"exit,omitempty"`
}

// warmBox is the server's end of one warm box.
type warmBox struct {
	key       string
	sup       *exec.Cmd // the supervisor, the box's first process
	conn      *net.UnixConn
	report    Report
	idleTimer *time.Timer
	endOnce   sync.Once
	binds     []bindID  // what its binds were when it was built
	links     []boxLink // and the links on the way to them
}

// bindID is a bound path and the file it was when the box was built.
type bindID struct {
	path     string
	dev, ino uint64
}

// bindIDs identifies the paths box binds; a path that cannot be read
// counts as no file.
func bindIDs(box *boxConfig) []bindID {
	var ids []bindID
	for _, b := range box.Binds {
		if b.Hide || b.Scratch {
			continue
		}
		id := bindID{path: b.Path}
		var st unix.Stat_t
		if unix.Lstat(b.Path, &st) == nil {
			id.dev, id.ino = st.Dev, st.Ino
		}
		ids = append(ids, id)
	}
	return ids
}

// current reports whether every path the box binds is still the file it
// bound, and every link on the way to them still names what it named: a
// workspace removed and made again (a fresh clone in its place) would
// otherwise be seen, in the box, as the old directory, deleted; a link
// turned elsewhere (a toolchain's version switched) as where it led.
func (b *warmBox) current() bool {
	for _, id := range b.binds {
		var st unix.Stat_t
		if unix.Lstat(id.path, &st) != nil {
			if id.ino != 0 {
				return false
			}
			continue
		}
		if st.Dev != id.dev || st.Ino != id.ino {
			return false
		}
	}
	for _, l := range b.links {
		if target, err := os.Readlink(l.Path); err != nil || target != l.Target {
			return false
		}
	}
	return true
}

// end kills the supervisor, which takes the box and all in it along.
func (b *warmBox) end() {
	b.endOnce.Do(func() {
		b.conn.Close()
		b.sup.Process.Kill()
		go b.sup.Wait()
	})
}

// spawn starts a warm box for hc and waits until its zygote is ready.
func (w *Warm) spawn(key string, hc helperConfig) (*warmBox, error) {
	exe := helperExe()
	ids := bindIDs(hc.Box) // before the box opens them: a change in between shows at the next take
	cfg, err := json.Marshal(hc)
	if err != nil {
		return nil, err
	}
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	ours, theirs := os.NewFile(uintptr(pair[0]), "warm-box"), os.NewFile(uintptr(pair[1]), "warm-box-zygote")
	defer theirs.Close()
	fc, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		return nil, err
	}
	conn := fc.(*net.UnixConn)
	statusR, statusW, err := os.Pipe()
	if err != nil {
		conn.Close()
		return nil, err
	}
	defer statusR.Close()
	life, err := lifeline()
	if err != nil {
		statusW.Close()
		conn.Close()
		return nil, err
	}
	// Nothing of the server's environment: each command brings its own.
	c := &exec.Cmd{Path: exe, Args: []string{"sudocode-sandbox-warm", string(cfg), "-"}}
	c.Env = append([]string{helperEnv + "=" + supervisorMagic}, raceEnv...)
	c.Dir = "/"
	c.ExtraFiles = []*os.File{statusW, life, theirs}
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // out of the server's process group
	err = startContained(c, hc.Box)
	statusW.Close()
	if err != nil {
		conn.Close()
		return nil, err
	}
	b := &warmBox{key: key, sup: c, conn: conn, binds: ids, links: hc.Box.Links}
	rep, err := awaitStart(statusR)
	if err != nil {
		b.end()
		return nil, err
	}
	b.report = rep
	if !w.add(b) {
		b.end()
		return nil, errors.New("the warm boxes are closed")
	}
	return b, nil
}

// awaitStart reads a supervisor's status lines up to Started: its
// report, or the error it could not start with.
func awaitStart(statusR *os.File) (Report, error) {
	statusR.SetReadDeadline(time.Now().Add(StartTimeout))
	defer statusR.SetReadDeadline(time.Time{})
	status := bufio.NewReader(statusR)
	var rep Report
	for {
		var l statusLine
		line, err := status.ReadBytes('\n')
		if err == nil {
			err = json.Unmarshal(line, &l)
		}
		if err != nil {
			return rep, errors.New("sandbox helper: exited before starting the command")
		}
		switch {
		case l.Report != nil:
			rep = *l.Report
		case l.ExecError != "":
			return rep, errors.New(l.ExecError)
		case l.Started:
			return rep, nil
		}
	}
}

// Prepare builds a box for policy p and keeps it idle, unless one is
// idle or being built already, so that the first command under p need
// not build one: a caller that knows it will run one soon builds it while
// it does other work, and a command that comes meanwhile waits for it
// rather than build a second. It reports whether a box is waiting or on
// its way.
func (w *Warm) Prepare(p Policy) bool {
	if helperExe() == "" {
		return false
	}
	keyb, err := json.Marshal(p)
	if err != nil {
		return false
	}
	key := string(keyb)
	done, ok := w.startBuilding(key)
	if !ok {
		return true // one is idle, or on its way
	}
	defer done()
	box, _ := newBox(p)
	if box == nil {
		return false
	}
	b, err := w.spawn(key, helperConfig{Policy: p, Box: box, Warm: true})
	if err != nil {
		return false
	}
	w.put(b)
	return true
}

// errNotWarm says a command cannot go through a warm box (its stdio is
// not files, its request too large, the box could not be made): it
// starts cold instead, and nothing of it has run.
var errNotWarm = errors.New("not startable in a warm box")

// startWarm runs the command in a warm box of w: errNotWarm when it did
// not start there and may start cold; any other error is the command's
// (or a box that ended while starting it: it may have run, so it is not
// started again).
func (c *Cmd) startWarm(w *Warm) error {
	var fds [3]int
	for i, s := range []any{c.Stdin, c.Stdout, c.Stderr} {
		switch f := s.(type) {
		case nil:
			null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
			if err != nil {
				return errNotWarm
			}
			defer null.Close()
			fds[i] = int(null.Fd())
		case *os.File:
			fds[i] = int(f.Fd())
		default:
			return errNotWarm
		}
	}
	req := warmRequest{Path: c.Path, Args: c.Args, Env: c.Env, Dir: c.Dir}
	if req.Env == nil {
		req.Env = os.Environ()
	}
	if sys := c.SysProcAttr; sys != nil {
		if sys.Setctty && sys.Ctty != 0 || sys.Setpgid || sys.Credential != nil || sys.Cloneflags != 0 {
			return errNotWarm
		}
		req.TTY = sys.Setctty
	}
	msg, err := json.Marshal(req)
	if err != nil || len(msg) > maxWarmMessage {
		return errNotWarm
	}
	// Boxes are kept by policy; the box a policy plans (resolving every
	// path's links) is worked out only to build one: a kept box is used
	// while what it binds and the links it made are as they were.
	keyb, err := json.Marshal(c.Policy)
	if err != nil {
		return errNotWarm
	}
	key := string(keyb)
	b := w.take(key)
	if b == nil {
		w.awaitBuilding(key)
		b = w.take(key)
	}
	for b != nil && !b.current() {
		w.drop(b)
		b = w.take(key)
	}
	if b == nil {
		box, _ := newBox(c.Policy)
		if box == nil {
			return errNotWarm // the cold start reports why
		}
		if b, err = w.spawn(key, helperConfig{Policy: c.Policy, Box: box, Warm: true}); err != nil {
			return errNotWarm
		}
	}
	if _, _, err := b.conn.WriteMsgUnix(msg, unix.UnixRights(fds[:]...), nil); err != nil {
		if errors.Is(err, syscall.EMSGSIZE) || errors.Is(err, syscall.ENOBUFS) {
			w.put(b)
		} else {
			w.drop(b)
		}
		return errNotWarm
	}
	b.conn.SetReadDeadline(time.Now().Add(StartTimeout))
	reply, pidfd, err := readWarmReply(b.conn)
	b.conn.SetReadDeadline(time.Time{})
	if err != nil {
		w.drop(b)
		return fmt.Errorf("sandbox: the warm box ended while starting the command: %w", err)
	}
	if reply.ExecError != "" {
		w.put(b)
		return errors.New(reply.ExecError)
	}
	if !reply.Started {
		w.drop(b)
		return errors.New("sandbox: the warm box answered out of turn")
	}
	c.pid = pidOf(pidfd)
	if pidfd >= 0 {
		unix.Close(pidfd)
	}
	c.report = b.report
	c.done = make(chan struct{})
	go func() {
		defer close(c.done)
		r, fd, err := readWarmReply(b.conn)
		if fd >= 0 {
			unix.Close(fd)
		}
		if err != nil || r.Exit == nil {
			w.drop(b) // the box ended: so did the command, killed
			return
		}
		c.exit = r.Exit
		w.put(b)
	}()
	return nil
}

// readWarmReply reads one message from a zygote, with the descriptor it
// carries (-1 if none).
func readWarmReply(conn *net.UnixConn) (warmReply, int, error) {
	buf := make([]byte, 4096)
	oob := make([]byte, unix.CmsgSpace(4))
	n, oobn, _, _, err := conn.ReadMsgUnix(buf, oob)
	if err != nil {
		return warmReply{}, -1, err
	}
	fd := -1
	if fds := rightsOf(oob[:oobn]); len(fds) > 0 {
		fd = fds[0]
		for _, extra := range fds[1:] {
			unix.Close(extra)
		}
	}
	if n == 0 {
		if fd >= 0 {
			unix.Close(fd)
		}
		return warmReply{}, -1, errors.New("end of file")
	}
	var r warmReply
	if err := json.Unmarshal(buf[:n], &r); err != nil {
		if fd >= 0 {
			unix.Close(fd)
		}
		return warmReply{}, -1, err
	}
	return r, fd, nil
}

// rightsOf is the descriptors passed in a control message.
func rightsOf(oob []byte) []int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for _, m := range msgs {
		if got, err := unix.ParseUnixRights(&m); err == nil {
			fds = append(fds, got...)
		}
	}
	return fds
}

// pidOf is the pid, as this process sees it, of the process a pidfd
// refers to; -1 if it has already been reaped (the command is over).
func pidOf(pidfd int) int {
	if pidfd < 0 {
		return -1
	}
	b, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(pidfd))
	if err != nil {
		return -1
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("Pid:")); ok {
			if pid, err := strconv.Atoi(string(bytes.TrimSpace(v))); err == nil && pid > 0 {
				return pid
			}
		}
	}
	return -1
}
