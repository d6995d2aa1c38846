package kind

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A fake container CLI, so that the provider runs the real kind library
// with no container engine. installFakeCLI links the test binary under
// the CLI's name in a folder that becomes the whole PATH; run under that
// name, TestMain answers as the CLI would, instead of running the tests.
//
// The fake answers what kind v0.33.0's docker provider asks while it
// creates, lists and deletes a one-node cluster (every call is recorded
// in FAKE_CLI_STATE/calls, one JSON argv a line), keeping its containers
// as files under FAKE_CLI_STATE/containers. podman answers only the
// engine probe and ps, enough to see which CLI kind drives. Knobs:
//
//	FAKE_CLI_NO_ENGINE  CLI names whose engine is down (info fails as docker's does)
//	FAKE_CLI_FAIL       a call whose space-joined argv contains it fails
//	FAKE_CLI_API        host:port the API server port mapping points at
//	FAKE_CLI_CA         certificate-authority-data of the admin.conf
func TestMain(m *testing.M) {
	switch name := filepath.Base(os.Args[0]); name {
	case "docker", "podman", "nerdctl":
		os.Exit(fakeCLI(name, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// installFakeCLI makes PATH a folder holding only the fake CLIs named and
// returns the fake's state folder; HOME is empty and proxy variables are
// unset, so kind asks nothing else.
func installFakeCLI(t *testing.T, names ...string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin, state := t.TempDir(), t.TempDir()
	for _, n := range names {
		if err := os.Symlink(self, filepath.Join(bin, n)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("FAKE_CLI_STATE", state)
	for _, v := range []string{"KUBECONFIG", "KIND_EXPERIMENTAL_PROVIDER", "KIND_EXPERIMENTAL_DOCKER_NETWORK", "DOCKER_HOST", "DOCKER_CONTEXT",
		"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
		"FAKE_CLI_NO_ENGINE", "FAKE_CLI_FAIL", "FAKE_CLI_API", "FAKE_CLI_CA"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	return state
}

// fakeCalls reads the recorded calls, each "cli arg arg ...".
func fakeCalls(t *testing.T, state string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(state, "calls"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var argv []string
		if err := json.Unmarshal([]byte(line), &argv); err != nil {
			t.Fatalf("calls: %q: %v", line, err)
		}
		out = append(out, strings.Join(argv, " "))
	}
	return out
}

// fakeContainer is what the fake remembers of a `run`.
type fakeContainer struct {
	Cluster, Role, Image, HostIP, HostPort string
	Args                                   []string
}

func fakeContainers(state string) map[string]fakeContainer {
	return (&fake{state: state}).containers()
}

func fakeCLI(cli string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f := &fake{cli: cli, state: os.Getenv("FAKE_CLI_STATE"), stdin: stdin, out: stdout, err: stderr}
	if f.state == "" {
		fmt.Fprintf(stderr, "fake %s: FAKE_CLI_STATE is not set\n", cli)
		return 2
	}
	if err := f.record(args); err != nil {
		fmt.Fprintf(stderr, "fake %s: %v\n", cli, err)
		return 2
	}
	if s := os.Getenv("FAKE_CLI_FAIL"); s != "" && strings.Contains(cli+" "+strings.Join(args, " "), s) {
		fmt.Fprintln(stderr, "Error response from daemon: injected failure")
		return 1
	}
	return f.run(args)
}

type fake struct {
	cli, state string
	stdin      io.Reader
	out, err   io.Writer
}

func (f *fake) record(args []string) error {
	line, err := json.Marshal(append([]string{f.cli}, args...))
	if err != nil {
		return err
	}
	calls, err := os.OpenFile(filepath.Join(f.state, "calls"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if _, err := calls.Write(append(line, '\n')); err != nil {
		calls.Close()
		return err
	}
	return calls.Close()
}

func (f *fake) fail(format string, args ...any) int {
	fmt.Fprintf(f.err, format+"\n", args...)
	return 1
}

func (f *fake) say(lines ...string) int {
	for _, l := range lines {
		fmt.Fprintln(f.out, l)
	}
	return 0
}

func (f *fake) run(args []string) int {
	if len(args) == 0 {
		return f.fail("fake %s: no command", f.cli)
	}
	if f.cli != "docker" {
		// Only the probe and the listing: kind's first real call fails.
		switch {
		case args[0] == "info" && f.engineDown():
			return f.fail("Cannot connect to Podman. Please verify your connection to the Linux system")
		case strings.Join(args, " ") == "info --format {{.Version.Version}}":
			return f.say("5.4.0")
		case args[0] == "ps":
			return f.ps(args[1:])
		}
		return f.fail("fake %s: unhandled %q", f.cli, args)
	}
	switch args[0] {
	case "-v", "--version":
		return f.say("Docker version 29.0.0, build fake")
	case "info":
		return f.info(args[1:])
	case "ps":
		return f.ps(args[1:])
	case "inspect":
		return f.inspect(args[1:])
	case "pull":
		if err := os.MkdirAll(filepath.Join(f.state, "images"), 0o755); err != nil {
			return f.fail("%v", err)
		}
		if err := os.WriteFile(f.imagePath(args[len(args)-1]), nil, 0o644); err != nil {
			return f.fail("%v", err)
		}
		return f.say(args[len(args)-1] + ": Pulled")
	case "network":
		return f.network(args[1:])
	case "run":
		return f.runContainer(args[1:])
	case "logs":
		return f.say("INFO: running in a fake", "[  OK  ] Reached target multi-user.target - Multi-User System.")
	case "exec":
		return f.exec(args[1:])
	case "rm":
		for _, a := range args[1:] {
			if !strings.HasPrefix(a, "-") {
				os.Remove(f.containerPath(a))
			}
		}
		return 0
	}
	return f.fail("fake docker: unhandled %q", args)
}

func (f *fake) engineDown() bool {
	for _, n := range strings.Fields(os.Getenv("FAKE_CLI_NO_ENGINE")) {
		if n == f.cli {
			return true
		}
	}
	return false
}

func (f *fake) info(args []string) int {
	if f.engineDown() {
		return f.fail("Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?")
	}
	if len(args) != 2 || (args[0] != "--format" && args[0] != "-f") {
		return f.fail("fake docker info: unhandled %q", args)
	}
	switch args[1] {
	case "{{.ServerVersion}}":
		return f.say("29.0.0")
	case "{{json .}}":
		return f.say(`{"ServerVersion":"29.0.0","CgroupDriver":"systemd","CgroupVersion":"2","MemoryLimit":true,"PidsLimit":true,"CPUShares":true,"SecurityOptions":["name=seccomp,profile=builtin","name=cgroupns"],"Driver":"overlay2"}`)
	case "'{{json .SecurityOptions}}'":
		return f.say(`'["name=seccomp,profile=builtin","name=cgroupns"]'`)
	case "{{.Driver}}":
		return f.say("overlay2")
	case "{{json .DriverStatus }}":
		return f.say(`[["Backing Filesystem","extfs"],["Supports d_type","true"]]`)
	}
	return f.fail("fake docker info: unhandled format %q", args[1])
}

// ps answers `ps -a --filter label=io.x-k8s.kind.cluster[=NAME] --format F`.
func (f *fake) ps(args []string) int {
	var filter, format string
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "--filter":
			filter = args[i+1]
		case "--format":
			format = args[i+1]
		}
	}
	for name, c := range f.containers() {
		if filter != "label=io.x-k8s.kind.cluster" && filter != "label=io.x-k8s.kind.cluster="+c.Cluster {
			continue
		}
		switch format {
		case "{{.Names}}":
			f.say(name)
		case `{{.Label "io.x-k8s.kind.cluster"}}`:
			f.say(c.Cluster)
		default:
			return f.fail("fake %s ps: unhandled format %q", f.cli, format)
		}
	}
	return 0
}

func (f *fake) inspect(args []string) int {
	if len(args) == 2 && args[0] == "--type=image" {
		if _, err := os.Stat(f.imagePath(args[1])); err != nil {
			return f.fail("Error: No such image: %s", args[1])
		}
		return f.say("[{}]")
	}
	if len(args) != 3 || (args[0] != "--format" && args[0] != "-f") {
		return f.fail("fake docker inspect: unhandled %q", args)
	}
	format, name := args[1], args[2]
	c, ok := f.containers()[name]
	if !ok {
		return f.fail("Error: No such object: %s", name)
	}
	switch {
	case strings.Contains(format, `"io.x-k8s.kind.role"`):
		return f.say(c.Role)
	case strings.Contains(format, ".NetworkSettings.Networks"):
		return f.say("172.18.0.2,")
	case strings.Contains(format, `"desktop.docker.io/ports/6443/tcp"`):
		return f.say("")
	case strings.Contains(format, `.NetworkSettings.Ports "6443/tcp"`):
		host, port := c.HostIP, c.HostPort
		if api := os.Getenv("FAKE_CLI_API"); api != "" {
			host, port, _ = strings.Cut(api, ":")
		}
		return f.say(host + "\t" + port)
	}
	return f.fail("fake docker inspect: unhandled format %q", format)
}

func (f *fake) network(args []string) int {
	marker := filepath.Join(f.state, "network-kind")
	switch {
	case len(args) > 0 && args[0] == "ls":
		if _, err := os.Stat(marker); err == nil {
			return f.say("0123456789ab")
		}
		return 0
	case len(args) > 1 && args[0] == "inspect" && args[1] == "bridge":
		return f.say("1500")
	case len(args) > 0 && args[0] == "create":
		if err := os.WriteFile(marker, nil, 0o644); err != nil {
			return f.fail("%v", err)
		}
		return f.say("0123456789abcdef")
	}
	return f.fail("fake docker network: unhandled %q", args)
}

func (f *fake) runContainer(args []string) int {
	var name string
	c := fakeContainer{Args: args, Image: args[len(args)-1]}
	for i, a := range args {
		next := ""
		if i+1 < len(args) {
			next = args[i+1]
		}
		switch {
		case a == "--name":
			name = next
		case a == "--label" && strings.HasPrefix(next, "io.x-k8s.kind.cluster="):
			c.Cluster = strings.TrimPrefix(next, "io.x-k8s.kind.cluster=")
		case a == "--label" && strings.HasPrefix(next, "io.x-k8s.kind.role="):
			c.Role = strings.TrimPrefix(next, "io.x-k8s.kind.role=")
		case strings.HasPrefix(a, "--publish=") && strings.HasSuffix(a, ":6443/TCP"):
			hp := strings.TrimSuffix(strings.TrimPrefix(a, "--publish="), ":6443/TCP")
			c.HostIP, c.HostPort, _ = strings.Cut(hp, ":")
		}
	}
	if name == "" {
		return f.fail("fake docker run: no --name in %q", args)
	}
	if _, ok := f.containers()[name]; ok {
		return f.fail("docker: Error response from daemon: Conflict. The container name %q is already in use.", "/"+name)
	}
	data, err := json.Marshal(c)
	if err == nil {
		err = os.MkdirAll(filepath.Join(f.state, "containers"), 0o755)
	}
	if err == nil {
		err = os.WriteFile(f.containerPath(name), data, 0o644)
	}
	if err != nil {
		return f.fail("%v", err)
	}
	return f.say("4f2c0ffee")
}

func (f *fake) exec(args []string) int {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		if args[i] == "-e" {
			i++
		}
		i++
	}
	if i >= len(args)-1 {
		return f.fail("fake docker exec: unhandled %q", args)
	}
	name, cmd := args[i], strings.Join(args[i+1:], " ")
	c, ok := f.containers()[name]
	if !ok {
		return f.fail("Error response from daemon: No such container: %s", name)
	}
	switch {
	case cmd == "cat /kind/version":
		return f.say(parseImageRef(c.Image).tag)
	case strings.HasPrefix(cmd, "mkdir -p "):
		return 0
	case strings.HasPrefix(cmd, "cp /dev/stdin "):
		io.Copy(io.Discard, f.stdin)
		return 0
	case strings.HasPrefix(cmd, "kubeadm init "):
		return f.say("Your Kubernetes control-plane has initialized successfully!")
	case strings.HasPrefix(cmd, "cat /kind/manifests/"):
		return f.say("# a fake manifest")
	case strings.HasPrefix(cmd, "kubectl ") && strings.Contains(cmd, " get nodes "):
		return f.say("'True'")
	case strings.HasPrefix(cmd, "kubectl "):
		io.Copy(io.Discard, f.stdin)
		return 0
	case cmd == "cat /etc/kubernetes/admin.conf":
		return f.say(`apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: ` + os.Getenv("FAKE_CLI_CA") + `
    server: https://` + name + `:6443
  name: kubernetes
contexts:
- context:
    cluster: kubernetes
    user: kubernetes-admin
  name: kubernetes-admin@kubernetes
current-context: kubernetes-admin@kubernetes
users:
- name: kubernetes-admin
  user:
    token: fake-admin-token`)
	}
	return f.fail("fake docker exec: unhandled %q", cmd)
}

func (f *fake) containers() map[string]fakeContainer {
	out := map[string]fakeContainer{}
	paths, _ := filepath.Glob(filepath.Join(f.state, "containers", "*.json"))
	for _, p := range paths {
		var c fakeContainer
		if data, err := os.ReadFile(p); err == nil && json.Unmarshal(data, &c) == nil {
			out[strings.TrimSuffix(filepath.Base(p), ".json")] = c
		}
	}
	return out
}

func (f *fake) containerPath(name string) string {
	return filepath.Join(f.state, "containers", name+".json")
}

func (f *fake) imagePath(ref string) string {
	return filepath.Join(f.state, "images", strings.NewReplacer("/", "_", ":", "_", "@", "_").Replace(ref))
}
