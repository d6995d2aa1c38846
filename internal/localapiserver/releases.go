package localapiserver

import (
	_ "embed"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// releasesTxt lists the releases the provider supports; the build script
// reads the same file beside it.
//
//go:embed releases.txt
var releasesTxt []byte

// Release is a Kubernetes release the provider can build and run, with
// what kube-apiserver needs to serve every kind of that release's table
// printers.
type Release struct {
	Minor   int    // 37 for 1.37
	Version string // "v1.37.1"
	// FeatureGates are the gates, "Name=true" each, without which the
	// release does not serve a printer kind even with every API version
	// enabled. Gates unknown to a release make its kube-apiserver refuse
	// to start, so they are per release.
	FeatureGates []string
}

// MinorString is "1.NN".
func (r Release) MinorString() string { return "1." + strconv.Itoa(r.Minor) }

var releases = parseReleases(releasesTxt)

// parseReleases reads releases.txt; the file is embedded, so a mistake
// in it is a programming error and panics at start-up (a test loads it).
func parseReleases(data []byte) []Release {
	var out []Release
	for i, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		minor, ok := parseMinor(fields[0])
		if len(fields) < 2 || !ok || !releaseRE.MatchString(fields[1]) || !strings.HasPrefix(fields[1], "v"+fields[0]+".") {
			panic(fmt.Sprintf("releases.txt:%d: want `1.NN v1.NN.P [key=value...]`, got %q", i+1, line))
		}
		r := Release{Minor: minor, Version: fields[1]}
		for _, kv := range fields[2:] {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "gates":
				r.FeatureGates = strings.Split(v, ",")
			case "require", "tags": // the build script's
			default:
				panic(fmt.Sprintf("releases.txt:%d: unknown key %q", i+1, k))
			}
		}
		out = append(out, r)
	}
	return out
}

var (
	releaseRE = regexp.MustCompile(`^v1\.[0-9]+\.[0-9]+$`)
	minorRE   = regexp.MustCompile(`^v?1\.([0-9]+)$`)
)

func parseMinor(s string) (int, bool) {
	m := minorRE.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// Releases are the supported releases, newest first: one per minor, its
// newest patch on the Go module proxy.
func Releases() []Release { return append([]Release(nil), releases...) }

// SupportedMinors is "1.NN-1.MM", the range Releases covers.
func SupportedMinors() string {
	return releases[len(releases)-1].MinorString() + "-" + releases[0].MinorString()
}

// LookupRelease resolves what --kube-version accepts: a release
// ("v1.31.14", any patch of a supported minor) or a minor ("1.31" or
// "v1.31", its newest patch). The empty string is the pinned Version.
func LookupRelease(s string) (Release, error) {
	if s == "" {
		s = Version
	}
	orig, version := s, ""
	if releaseRE.MatchString("v" + strings.TrimPrefix(s, "v")) {
		version = "v" + strings.TrimPrefix(s, "v")
		s = version[:strings.LastIndexByte(version, '.')]
	}
	minor, ok := parseMinor(s)
	if !ok {
		return Release{}, fmt.Errorf("Kubernetes version %q: want a release such as v1.31.14 or a minor such as 1.31", orig)
	}
	for _, r := range releases {
		if r.Minor == minor {
			if version != "" {
				r.Version = version
			}
			return r, nil
		}
	}
	return Release{}, fmt.Errorf("Kubernetes 1.%d is not supported by the local provider: it runs %s", minor, SupportedMinors())
}
