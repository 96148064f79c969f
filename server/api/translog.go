package api

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/pkg/wire"
	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// The transparency log's read side (docs/protocol.md, Transparency log):
// the latest signed checkpoint, hash tiles and entry bundles in the C2SP
// tlog-tiles layout, and the verifier key.

// logProof answers the offline proof (C2SP tlog-proof) of one entry: the
// entry, its inclusion proof and the latest checkpoint.
func (s *Server) logProof(c *gin.Context) {
	text := c.Param("index")
	index, err := strconv.ParseInt(text, 10, 64)
	if err != nil || index < 0 || strconv.FormatInt(index, 10) != text {
		s.shared.Fail(c, registry.Errorf(registry.Invalid, "the log index must be a decimal number, as in /log/proof/17"))
		return
	}
	proof, err := s.svc.LogProof(c, index)
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	writeLogBody(c, "text/plain; charset=utf-8", cacheCheckpoint, proof)
}

// logCheckpoint answers the latest checkpoint; with ?wait=1, one that
// covers every entry appended before the request, waiting for the
// sequencer up to registry.CheckpointWaitLimit (docs/protocol.md, Tree,
// checkpoints and tiles).
func (s *Server) logCheckpoint(c *gin.Context) {
	latest := s.svc.LogCheckpoint
	switch wait, ok := c.GetQuery("wait"); {
	case !ok:
	case wait == "1":
		// Waits are held, so each address holds only a few at once.
		release, ok := s.logWaits.take(httpx.AddressKey(c.ClientIP()))
		if !ok {
			s.shared.Fail(c, httpx.TooManyRequests("waiting for a checkpoint from this address", time.Second))
			return
		}
		defer release()
		latest = s.svc.LogCheckpointCovering
	default:
		s.shared.Fail(c, registry.Errorf(registry.Invalid, "wait must be 1 (wait for a checkpoint covering every entry logged so far) or absent"))
		return
	}
	signed, err := latest(c)
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	writeLogBody(c, "text/plain; charset=utf-8", cacheCheckpoint, signed)
}

func (s *Server) logKey(c *gin.Context) {
	key := s.svc.LogVerifierKey()
	if key == "" {
		s.shared.Fail(c, registry.Errorf(registry.Unavailable, "the log has no key yet"))
		return
	}
	writeLogBody(c, "text/plain; charset=utf-8", cacheCheckpoint, []byte(key+"\n"))
}

// logPolicy answers the witness policy as the operator wrote it
// (docs/protocol.md, Witnesses); 404 without one.
func (s *Server) logPolicy(c *gin.Context) {
	policy := s.svc.WitnessPolicy()
	if policy == nil {
		s.shared.Fail(c, registry.Errorf(registry.NotFound, "this registry's log has no witness policy"))
		return
	}
	writeLogBody(c, "text/plain; charset=utf-8", cacheCheckpoint, policy)
}

// presentWitnesses is the witnesses' part of /readyz, nil without a policy.
func presentWitnesses(r *registry.WitnessReport) *wire.LogWitnesses {
	if r == nil {
		return nil
	}
	out := &wire.LogWitnesses{CheckpointSize: r.CheckpointSize, WitnessedSize: r.WitnessedSize, Witnesses: []wire.LogWitness{}}
	if !r.QuorumTime.IsZero() {
		out.WitnessedAt = wire.OptionalTime(&r.QuorumTime)
	}
	for _, w := range r.Witnesses {
		out.Witnesses = append(out.Witnesses, wire.LogWitness{Name: w.Name, URL: w.URL, OK: w.OK,
			FailingSince: wire.OptionalTime(w.FailingSince), Error: w.Error, CosignedSize: w.CosignedSize})
	}
	return out
}

func (s *Server) logTile(c *gin.Context) {
	path := "tile" + c.Param("path")
	// A full tile on a public blob store is answered by a redirect there
	// (--blobs-public-url).
	if loc, ok, err := s.svc.LogTileRedirect(c, path); err != nil {
		s.shared.Fail(c, err)
		return
	} else if ok {
		h := c.Writer.Header()
		h.Set("Cache-Control", cacheTileRedirect)
		h.Set("Location", loc)
		c.Status(http.StatusTemporaryRedirect)
		return
	}
	t, ok := s.tiles.get(path)
	if !ok {
		data, full, err := s.svc.LogTile(c, path)
		if err != nil {
			s.shared.Fail(c, err)
			return
		}
		t = &cachedTile{path: path, data: data, full: full}
		s.tiles.put(t)
	}
	cache := cachePartialTile
	if t.full {
		cache = cachePinned
	}
	if strings.HasPrefix(path, entryBundlePrefix) && len(t.data) > httpx.MinGzipBytes {
		// Entry bundles are compressed for the clients that take it, as
		// C2SP tlog-tiles recommends; hash tiles (hashes) would not shrink.
		var gz []byte
		if httpx.AcceptsGzip(c.Request) {
			gz = s.tiles.gzipped(t)
		}
		h := c.Writer.Header()
		h.Set("Cache-Control", cache)
		h.Set("X-Content-Type-Options", "nosniff")
		httpx.WriteEncoded(c, http.StatusOK, octetStream, t.data, gz, true)
		return
	}
	writeLogBody(c, "application/octet-stream", cache, t.data)
}

const entryBundlePrefix = "tile/entries/"

// cacheTileRedirect lets caches keep a tile's redirect for an hour: the
// tile never changes, but the operator may move the public URL.
const cacheTileRedirect = "public, max-age=3600"

var octetStream = []string{"application/octet-stream"}

func writeLogBody(c *gin.Context, contentType, cache string, body []byte) {
	h := c.Writer.Header()
	h.Set("Content-Type", contentType)
	h.Set("Cache-Control", cache)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Content-Type-Options", "nosniff")
	c.Status(http.StatusOK)
	if c.Request.Method != http.MethodHead {
		_, _ = c.Writer.Write(body)
	}
}
