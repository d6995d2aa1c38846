package app_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every relative link of the README and of docs/ resolves: the file is
// there and, when the link names a heading, the page has that heading.
// Every page of docs/ is linked from the README.
func TestDocsLinks(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	readme := filepath.Join(root, "README.md")
	linked := map[string]bool{}
	for _, page := range append([]string{readme}, pages...) {
		text := readFile(t, page)
		for _, m := range markdownLink.FindAllStringSubmatch(withoutCode(text), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			dest := page
			if file != "" {
				dest = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
			}
			if _, err := os.Stat(dest); err != nil {
				t.Errorf("%s: link %q: %v", rel(root, page), target, err)
				continue
			}
			if page == readme {
				linked[filepath.Clean(dest)] = true
			}
			if anchor != "" && !headings(readFile(t, dest))[anchor] {
				t.Errorf("%s: link %q: %s has no heading %q", rel(root, page), target, rel(root, dest), anchor)
			}
		}
	}
	for _, page := range pages {
		if !linked[filepath.Clean(page)] {
			t.Errorf("README.md does not link %s", rel(root, page))
		}
	}
	if n := strings.Count(readFile(t, readme), "\n"); n >= 250 {
		t.Errorf("README.md has %d lines: it is for a newcomer; the rest belongs in docs/", n)
	}
}

var (
	markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	fence        = regexp.MustCompile("(?s)```.*?```")
	inlineCode   = regexp.MustCompile("`[^`\n]*`")
)

// withoutCode drops code blocks and spans, whose brackets are not links.
func withoutCode(s string) string {
	return inlineCode.ReplaceAllString(fence.ReplaceAllString(s, ""), "")
}

// headings are the anchors GitHub makes of a page's headings: lower case,
// punctuation but hyphens and underscores dropped, spaces as hyphens.
func headings(page string) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(fence.ReplaceAllString(page, ""), "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))
		var b strings.Builder
		for _, r := range title {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
				b.WriteRune(r)
			}
		}
		out[b.String()] = true
	}
	return out
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func rel(root, name string) string {
	r, err := filepath.Rel(root, name)
	if err != nil {
		return name
	}
	return r
}
