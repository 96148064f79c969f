package web

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"filippo.io/torchwood"
	"github.com/gin-gonic/gin"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/pact-registry/pact/pkg/translog"
	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// The transparency log's pages (docs/design.md, The pages): /log, the
// latest checkpoint and the newest entries, and /log/entry/{index}, one
// entry and how to check it by hand. The log's machine-readable paths
// under /log/ (checkpoint, key, tiles) are the API's.

// logPageSize is how many entries a page of /log lists.
const logPageSize = 50

func (pages *Pages) routeLog(e *gin.Engine) {
	httpx.GetAndHead(e, "/log", pages.logPage)
	httpx.GetAndHead(e, "/log/entry/:index", pages.logEntryPage)
}

// checkpointView is the latest checkpoint as the log page shows it.
type checkpointView struct {
	Origin string
	Size   int64
	Root   string // base64, as in the note
	Signed string // the signed note, as /log/checkpoint serves it
	// Witnesses are the signatures on the note other than the log's own.
	Witnesses []witnessView
}

// witnessView is one cosignature of the checkpoint.
type witnessView struct {
	Name    string
	KeyHash string    // the key's hash, 8 hex digits, as in a verifier key
	At      time.Time // when it cosigned; zero when the signature does not say
}

// cosignatureSize is a C2SP tlog-cosignature/v1 signature: the key hash, a
// timestamp and an Ed25519 signature. Only one of that size carries a time.
const cosignatureSize = 4 + 8 + 64

// viewCheckpoint reads the signed checkpoint with the log's key and lists
// the other signatures on it, witnesses' cosignatures among them.
func viewCheckpoint(verifierKey string, signed []byte) (*checkpointView, error) {
	verifier, err := note.NewVerifier(verifierKey)
	if err != nil {
		return nil, fmt.Errorf("the log's verifier key: %w", err)
	}
	n, err := note.Open(signed, note.VerifierList(verifier))
	if err != nil {
		return nil, fmt.Errorf("the latest checkpoint: %w", err)
	}
	cp, err := translog.ParseCheckpointText(n.Text)
	if err != nil {
		return nil, err
	}
	view := &checkpointView{Origin: cp.Origin, Size: cp.Size, Root: cp.Hash.String(), Signed: string(signed)}
	for _, sig := range n.UnverifiedSigs {
		w := witnessView{Name: sig.Name, KeyHash: fmt.Sprintf("%08x", sig.Hash)}
		if raw, err := base64.StdEncoding.DecodeString(sig.Base64); err == nil && len(raw) == cosignatureSize {
			if sec, err := torchwood.CosignatureTimestamp(sig); err == nil {
				w.At = time.Unix(sec, 0)
			}
		}
		view.Witnesses = append(view.Witnesses, w)
	}
	return view, nil
}

// logRow is one entry of the log, summed up: what happened, to what.
type logRow struct {
	Index   int64
	Path    string // its page
	Time    time.Time
	Kind    string
	Subject string // owner/pack@version, an owner, ...
	Link    string // the subject's page, "" for none
	Detail  string // the rest, in words
	Owner   string // the owner the entry is about, "" when it names none
	Version string // owner/pack@version for an entry about a version
}

func logEntryPath(index int64) string { return "/log/entry/" + strconv.FormatInt(index, 10) }

// summarise sums an entry up; one that does not parse is shown by its
// index alone (pactd log check would say what is wrong with it).
func summarise(index int64, data []byte) logRow {
	row := logRow{Index: index, Path: logEntryPath(index), Kind: "unreadable"}
	e, err := translog.Parse(data)
	if err != nil {
		return row
	}
	row.Time, row.Kind = e.Time, e.Kind
	owner, pack, version := e.Get("owner"), e.Get("pack"), e.Get("version")
	row.Owner = owner
	if owner != "" {
		row.Subject, row.Link = owner, "/"+owner
	}
	// An entry about a package, not one version of it (its pack-state,
	// its trusted publishing only), names the package.
	if owner != "" && pack != "" {
		row.Subject, row.Link = owner+"/"+pack, "/"+owner+"/"+pack
	}
	if owner != "" && pack != "" && version != "" {
		row.Version = owner + "/" + pack + "@" + version
		row.Subject, row.Link = row.Version, "/"+row.Version
	}
	switch e.Kind {
	case translog.KindPublish:
		row.Detail = "by " + map[string]string{translog.AuthToken: "API token", translog.AuthSSH: "SSH signature",
			translog.AuthOIDC: "trusted publishing"}[e.Get("auth")]
	case translog.KindKeyAdd, translog.KindKeyRemove:
		row.Detail = "key " + e.Get("fingerprint")
	case translog.KindYank:
		if reason, err := translog.ParseJSONString(e.Get("reason")); err == nil && reason != "" {
			row.Detail = "reason: " + reason
		}
	case translog.KindRelease:
		row.Detail = e.Get("artifacts") + " artifacts"
	case translog.KindMember:
		row.Detail = "member " + e.Get("member") + " as " + e.Get("role") + ", by " + e.Get("by")
	case translog.KindMemberRemove:
		row.Detail = "member " + e.Get("member") + " removed by " + e.Get("by")
	case translog.KindPackState:
		row.Detail = packStateDetail(e)
	case translog.KindTrustedPublisherRemove:
		row.Detail = "trusted publisher " + e.Get("trusted-publisher") + " of " + e.Get("member") + ", by " + e.Get("by")
	}
	return row
}

// packStateDetail says a pack-state entry's state in words: its latest
// version, its yanked versions and whether it is deprecated.
func packStateDetail(e *translog.Entry) string {
	st, err := e.PackState()
	if err != nil {
		return ""
	}
	parts := []string{"no latest version"}
	if st.Latest != "" {
		parts[0] = "latest " + st.Latest
	}
	if len(st.Yanked) > 0 {
		parts = append(parts, "yanked "+strings.Join(st.Yanked, ", "))
	}
	if st.Deprecated != "" {
		parts = append(parts, "deprecated")
	}
	return strings.Join(parts, " · ")
}

// logPage lists the newest entries of the latest checkpoint's tree, a page
// at a time: ?before=N lists those below index N.
func (pages *Pages) logPage(c *gin.Context) {
	size, signed, err := pages.svc.LogHead(c)
	if err != nil {
		pages.errorPage(c, err)
		return
	}
	cp, err := viewCheckpoint(pages.svc.LogVerifierKey(), signed)
	if err != nil {
		pages.errorPage(c, err)
		return
	}
	end := size
	if before, ok := c.GetQuery("before"); ok {
		n, ok := parseIndex(before)
		if !ok {
			pages.errorPage(c, registry.Errorf(registry.Invalid, "before must be an entry's index, a decimal number"))
			return
		}
		end = min(n, size)
	}
	start := max(0, end-logPageSize)
	entries, err := pages.svc.ReadLogEntries(c, start, end)
	if err != nil {
		pages.errorPage(c, err)
		return
	}
	rows := make([]logRow, 0, len(entries))
	for i := len(entries) - 1; i >= 0; i-- {
		rows = append(rows, summarise(start+int64(i), entries[i]))
	}
	data := gin.H{"Checkpoint": cp, "Entries": rows, "Key": pages.svc.LogVerifierKey(),
		"CheckpointURL": pages.shared.URLs.Base + "/log/checkpoint", "KeyURL": pages.shared.URLs.Base + "/log/key"}
	if start > 0 {
		data["OlderURL"] = "/log?before=" + strconv.FormatInt(start, 10)
	}
	if end < size {
		data["NewestURL"] = "/log"
	}
	c.Header("Cache-Control", "no-cache")
	pages.render(c, http.StatusOK, "log.html", "", data)
}

// parseIndex reads an entry index written as the log writes it: decimal,
// no sign, no leading zeros.
func parseIndex(s string) (int64, bool) {
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n >= 0 && strconv.FormatInt(n, 10) == s
}

// logEntryPage shows one entry of the latest checkpoint's tree: its exact
// text, its leaf hash, and the commands that check it by hand.
func (pages *Pages) logEntryPage(c *gin.Context) {
	index, ok := parseIndex(c.Param("index"))
	if !ok {
		pages.notFound(c)
		return
	}
	size, _, err := pages.svc.LogHead(c)
	if err != nil {
		pages.errorPage(c, err)
		return
	}
	if index >= size {
		pages.notFound(c)
		return
	}
	entries, err := pages.svc.ReadLogEntries(c, index, index+1)
	if err != nil {
		pages.errorPage(c, err)
		return
	}
	data := entries[0]
	row := summarise(index, data)
	leaf := translog.RecordHash(data)
	bundle := translog.EntryTile(index, size)
	hashes := tlog.Tile{H: translog.TileHeight, L: 0, N: bundle.N, W: bundle.W}
	base := pages.shared.URLs.Base
	position := index%translog.TileWidth + 1
	steps := []copyLine{
		{ID: "verify-checkpoint", Text: "curl -fsS " + base + "/log/checkpoint"},
		{ID: "verify-leaf", Text: "{ printf '\\0'; cat <<'ENTRY'\n" + string(data) + "ENTRY\n} | sha256sum"},
		{ID: "verify-tile", Text: "curl -fsS " + base + "/log/" + translog.TilePath(hashes) +
			" | od -An -v -tx1 -w32 | tr -d ' ' | sed -n " + strconv.FormatInt(position, 10) + "p"},
		{ID: "verify-bundle", Text: "curl -fsS " + base + "/log/" + translog.TilePath(bundle) + " -o entries.bundle"},
	}
	var check copyLine
	switch {
	case row.Version != "" && row.Kind == translog.KindPublish:
		check = copyLine{ID: "verify-pact", Text: pages.cliCommand("verify", row.Version)}
	case row.Owner != "":
		check = copyLine{ID: "verify-pact", Text: pages.cliCommand("log watch", "--owner", row.Owner)}
	}
	c.Header("Cache-Control", "no-cache")
	pages.render(c, http.StatusOK, "logentry.html", "", gin.H{
		"Entry": row, "Text": string(data), "TreeSize": size,
		"LeafHex": hex.EncodeToString(leaf[:]), "LeafBase64": leaf.String(),
		"Steps": steps, "Position": position, "BundlePath": translog.TilePath(bundle), "Check": check,
		"NewerURL": newerEntry(index, size), "OlderURL": olderEntry(index),
		"ListURL": "/log?before=" + strconv.FormatInt(index+1, 10),
	})
}

func newerEntry(index, size int64) string {
	if index+1 >= size {
		return ""
	}
	return logEntryPath(index + 1)
}

func olderEntry(index int64) string {
	if index == 0 {
		return ""
	}
	return logEntryPath(index - 1)
}
