package cmdutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxSymlinkHops matches Linux's limit on symbolic links in one lookup.
const maxSymlinkHops = 40

// SaveFile writes content to path the way a user expects of any file the
// CLI writes (downloads and its own config alike):
//
//   - a regular file, or a path that does not exist, is written to a
//     temporary file beside it that is then renamed over it, so nobody ever
//     reads half a file; new files get perm, new directories dirPerm;
//   - a device, FIFO or socket (/dev/null, /dev/stdout, a named pipe) is
//     opened and written to directly: renaming over it would replace the
//     device with a regular file, for every other program too;
//   - a symbolic link is followed: the file it names is written, beside its
//     own directory, and the link stays a link.
func SaveFile(path string, content []byte, perm, dirPerm fs.FileMode) error {
	info, err := os.Stat(path)
	switch {
	case err == nil && info.IsDir():
		return fmt.Errorf("%s is a directory", path)
	case err == nil && !info.Mode().IsRegular():
		return writeInPlace(path, content)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	target, err := followSymlinks(path)
	if err != nil {
		return err
	}
	return replaceFile(target, content, perm, dirPerm)
}

// writeInPlace writes to an existing file that is not a regular file.
func writeInPlace(path string, content []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(content); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// followSymlinks returns the path that path's symbolic links lead to, which
// need not exist yet (a link to a file still to be made).
func followSymlinks(path string) (string, error) {
	p := path
	for range maxSymlinkHops {
		// Resolve the directory first, so a relative link target such as
		// "../x" is taken from where the link really is.
		if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			p = filepath.Join(dir, filepath.Base(p))
		}
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
		if err != nil {
			return "", err
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		link, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(p), link)
		}
		p = link
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

// replaceFile writes content to a temporary file in path's directory and
// renames it over path.
func replaceFile(path string, content []byte, perm, dirPerm fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, dirPerm); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*") // created 0600
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(content); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ExpandHome turns a leading "~/" into the home directory.
func ExpandHome(path string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return path
}
