//go:build !linux

package blobs

import "errors"

// Elsewhere a file system is not synced in one call: PutUnsynced syncs each
// blob as Put does.
const canSyncFS = false

func syncFS(string) error { return errors.New("syncfs is Linux's") }
