package cmdutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSaveFileRefusals(t *testing.T) {
	dir := t.TempDir()
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink("loop", loop); err != nil {
		t.Fatal(err)
	}
	if err := SaveFile(loop, []byte("x"), 0o644, 0o755); err == nil || !strings.Contains(err.Error(), "symbolic links") {
		t.Errorf("saveFile through a symlink loop: %v, want an error about symbolic links", err)
	}
	if err := SaveFile(dir, []byte("x"), 0o644, 0o755); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("saveFile onto a directory: %v, want 'is a directory'", err)
	}
}

// A relative link is resolved from where the link really is, also when it
// is reached through a symlinked directory.
func TestSaveFileRelativeLinkInSymlinkedDirectory(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"real/sub", "data"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, "real", "sub"), filepath.Join(root, "alias")); err != nil {
		t.Fatal(err)
	}
	// real/sub/link -> ../target.md names real/target.md, not root/target.md.
	if err := os.Symlink("../target.md", filepath.Join(root, "real", "sub", "link")); err != nil {
		t.Fatal(err)
	}
	if err := SaveFile(filepath.Join(root, "alias", "link"), []byte("content"), 0o644, 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, "real", "target.md"))
	if err != nil || string(got) != "content" {
		t.Errorf("real/target.md = %q, %v; want the content", got, err)
	}
	if _, err := os.Stat(filepath.Join(root, "target.md")); err == nil {
		t.Errorf("the link was resolved lexically: %s was written", filepath.Join(root, "target.md"))
	}
	if info, err := os.Lstat(filepath.Join(root, "real", "sub", "link")); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is no longer a link: %v, %v", info, err)
	}
}
