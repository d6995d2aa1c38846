package serve

import (
	"strings"

	"github.com/bundlectl/bundlectl/contract"
)

// upgradeWarnings are the warnings serve prints for bundle, upgraded on
// load: the upgrade's problems, one line per file, then the index's
// warnings about the upgraded copy that no problem already tells. The
// upgrade copies a file it cannot read unchanged, so loading the copy
// finds the same fault again: one broken file was reported twice or more
// (serve printed 7 warnings for 3 files). An index warning about a file
// the upgrade reported is dropped when that file's line already says it,
// else it joins that line, which names the file once.
func upgradeWarnings(bundle string, problems []contract.Problem, warnings []string) []string {
	var lines []string
	line := map[string]int{} // a file's place in lines
	add := func(path, msg string) {
		if i, ok := line[path]; ok {
			if !strings.Contains(lines[i], msg) {
				lines[i] += "; " + msg
			}
			return
		}
		line[path] = len(lines)
		lines = append(lines, path+": "+msg)
	}
	for _, p := range problems {
		if p.Path == "" || p.Path == bundle {
			lines = append(lines, p.Message) // the bundle's, named by serve
			continue
		}
		add(p.Path, p.Message)
	}
	for _, w := range warnings {
		if path, msg, ok := cutFile(w, line); ok {
			add(path, msg)
		} else {
			lines = append(lines, w)
		}
	}
	return lines
}

// cutFile splits an index warning "PATH: MESSAGE" whose PATH is one of
// files; a path may itself hold ": ".
func cutFile(w string, files map[string]int) (path, msg string, ok bool) {
	for i := 0; ; i += 2 {
		j := strings.Index(w[i:], ": ")
		if j < 0 {
			return "", "", false
		}
		i += j
		if _, ok := files[w[:i]]; ok {
			return w[:i], w[i+2:], true
		}
	}
}
