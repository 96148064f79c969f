package blobs

import (
	"os"

	"golang.org/x/sys/unix"
)

const canSyncFS = true

// syncFS writes out everything pending on the file system that holds dir.
func syncFS(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}
