package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/pkg/clip"
	"github.com/pact-registry/pact/pkg/wire"
	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// maxFormParts bounds a multipart body: a publish needs four fields.
const maxFormParts = 16

// bodyLimit bounds a request body. JSON escaping can make a document several
// times longer, so the body may exceed the document limit; the document's own
// limit is enforced exactly by packfmt afterwards.
func (s *Server) bodyLimit() int64 { return 4*s.svc.MaxBytes() + 64<<10 }

func (s *Server) limitBody(c *gin.Context) {
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, s.bodyLimit())
}

func mediaType(c *gin.Context) (string, map[string]string) {
	ct := c.GetHeader("Content-Type")
	if ct == "" {
		return "", nil
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return "invalid", nil
	}
	return mt, params
}

// readError turns a body read failure into the error users should see.
func readError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return registry.Errorf(registry.TooLarge, "request body is larger than the limit of %d bytes", tooLarge.Limit)
	}
	return registry.Errorf(registry.Invalid, "could not read the request body: %s", err.Error())
}

// decodeJSONBody reads a JSON object into v. Wrong types, trailing data and
// an empty body are 400; a non-JSON Content-Type is 415.
func (s *Server) decodeJSONBody(c *gin.Context, v any) error {
	return s.decodeJSONBodyLimited(c, v, s.bodyLimit())
}

// maxKeyBodyBytes bounds POST /api/ssh-keys: an RSA-16384 key line is ~3 KB.
const maxKeyBodyBytes = 64 << 10

func (s *Server) decodeJSONBodyLimited(c *gin.Context, v any, limit int64) error {
	_, err := s.decodeJSONBodyRaw(c, v, limit)
	return err
}

// decodeJSONBodyRaw is the prologue of every JSON body: it must say it is
// JSON, it reserves its bytes from the body budget while it is read and
// decoded, and it is read whole, at most limit bytes, and decoded into v.
// It answers the bytes read, for checks beyond v.
func (s *Server) decodeJSONBodyRaw(c *gin.Context, v any, limit int64) ([]byte, error) {
	if mt, _ := mediaType(c); mt != "application/json" {
		return nil, httpx.Errorf(httpx.UnsupportedMedia, "Content-Type must be application/json")
	}
	release, err := s.reserveBody(c, limit)
	if err != nil {
		return nil, err
	}
	defer release()
	raw, err := readBody(c.Writer, c.Request, limit)
	if err != nil {
		return nil, err
	}
	return raw, decodeJSON(raw, v)
}

// decodeJSON decodes the JSON object raw into v. Its structure is checked
// first (see scanJSON), then it is decoded in place: raw is not copied.
func decodeJSON(raw []byte, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return registry.Errorf(registry.Invalid, "request body is required")
	}
	if err := scanJSON(raw); err != nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return jsonError(err)
	}
	return nil
}

// jsonError describes a decoding error in terms of the JSON a client sent:
// encoding/json's own messages name Go types and struct fields.
func jsonError(err error) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr) && typeErr.Field == "":
		return registry.Errorf(registry.Invalid, "request body must be a JSON object, not %s", jsonValueName(typeErr.Value))
	case errors.As(err, &typeErr):
		return registry.Errorf(registry.Invalid, "field %s must be %s, not %s",
			typeErr.Field, expectedJSON(typeErr.Type.Kind()), jsonValueName(typeErr.Value))
	case errors.As(err, &syntaxErr):
		return registry.Errorf(registry.Invalid, "request body is not valid JSON: %s (at byte %d)", syntaxErr.Error(), syntaxErr.Offset)
	}
	return registry.Errorf(registry.Invalid, "request body is not valid JSON")
}

// expectedJSON names the JSON a Go value of kind k is decoded from.
func expectedJSON(k reflect.Kind) string {
	switch k {
	case reflect.String, reflect.Pointer:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}

// jsonValueName turns encoding/json's description of what it found
// ("number", "number 1.5", "array", ...) into words for a message.
func jsonValueName(value string) string {
	kind, literal, _ := strings.Cut(value, " ")
	switch kind {
	case "number":
		if literal != "" {
			return "the number " + literal
		}
		return "a number"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "array":
		return "an array"
	case "object":
		return "an object"
	}
	return "another kind of value"
}

// maxJSONDepth bounds how deeply a request body may nest arrays and
// objects. The bodies pact reads are flat objects; refusing deeper
// nesting before decoding keeps a body of brackets from costing memory
// and time for every level.
const maxJSONDepth = 32

// scanJSON checks the structure of a JSON body before it is decoded, in
// one pass that allocates only for object keys:
//   - no nesting deeper than maxJSONDepth;
//   - no object names a key twice, also not in another letter case or
//     escaped: encoding/json keeps the last of keys that match a field
//     case-insensitively, so a proxy or signer that read the first could be
//     shown one document while another is published;
//   - nothing after the top-level object.
//
// Syntax errors are left to the decoder, which describes them.
func scanJSON(raw []byte) error {
	type frame struct {
		object, expectKey bool
		keys              map[string]struct{}
	}
	var stack [maxJSONDepth]frame
	depth := 0
	closed := false // the top-level object or array has ended
	for i := 0; i < len(raw); i++ {
		ch := raw[i]
		if ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' {
			continue
		}
		if closed {
			return registry.Errorf(registry.Invalid, "request body holds data after the JSON object")
		}
		switch ch {
		case '{', '[':
			if depth == maxJSONDepth {
				return registry.Errorf(registry.Invalid, "request body nests arrays or objects deeper than %d levels", maxJSONDepth)
			}
			stack[depth] = frame{object: ch == '{', expectKey: ch == '{'}
			depth++
		case '}', ']':
			if depth > 0 {
				depth--
				stack[depth] = frame{}
				closed = depth == 0
			}
		case ',':
			if depth > 0 && stack[depth-1].object {
				stack[depth-1].expectKey = true
			}
		case '"':
			end, ok := stringEnd(raw, i)
			if !ok {
				return nil
			}
			if top := depth - 1; top >= 0 && stack[top].object && stack[top].expectKey {
				var key string
				if json.Unmarshal(raw[i:end+1], &key) != nil {
					return nil
				}
				folded := foldKey(key)
				if _, seen := stack[top].keys[folded]; seen {
					return registry.Errorf(registry.Invalid, "request body names the field %q twice", key)
				}
				if stack[top].keys == nil {
					stack[top].keys = map[string]struct{}{}
				}
				stack[top].keys[folded] = struct{}{}
				stack[top].expectKey = false
			}
			i = end
		}
	}
	return nil
}

// stringEnd is the index of the quote that closes the JSON string opening
// at raw[start].
func stringEnd(raw []byte, start int) (int, bool) {
	for from := start + 1; from < len(raw); {
		q := bytes.IndexByte(raw[from:], '"')
		if q < 0 {
			return 0, false
		}
		q += from
		backslashes := 0
		for p := q - 1; p > start && raw[p] == '\\'; p-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return q, true
		}
		from = q + 1
	}
	return 0, false
}

// foldKey maps every key that encoding/json would match to the same field
// to one string: each rune becomes the smallest of its case-folding orbit.
func foldKey(key string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, key)
}

// decodePublish reads a publish request sent as JSON or as a multipart form.
func (s *Server) decodePublish(c *gin.Context) (registry.PublishRequest, error) {
	mt, params := mediaType(c)
	switch mt {
	case "application/json":
		var body wire.PublishRequest
		if err := s.decodeJSONBody(c, &body); err != nil {
			return registry.PublishRequest{}, err
		}
		if len(body.Content) == 0 {
			return registry.PublishRequest{}, registry.Errorf(registry.Invalid, "content is required: the full pack document")
		}
		if err := s.checkDocumentSize(len(body.Content)); err != nil {
			return registry.PublishRequest{}, err
		}
		return registry.PublishRequest{Content: body.Content, Name: deref(body.Name), Description: deref(body.Description), Owner: deref(body.Owner)}, nil
	case "multipart/form-data":
		return s.decodePublishForm(c, params["boundary"])
	case "":
		if c.Request.ContentLength == 0 {
			return registry.PublishRequest{}, registry.Errorf(registry.Invalid, "request body is required: send JSON {\"content\": ...} or a multipart form with a file field")
		}
	}
	return registry.PublishRequest{}, httpx.Errorf(httpx.UnsupportedMedia,
		"Content-Type must be application/json or multipart/form-data")
}

// decodePublishForm reads the fields file, content, name and description.
// When both file and content are sent, file wins.
func (s *Server) decodePublishForm(c *gin.Context, boundary string) (registry.PublishRequest, error) {
	if boundary == "" {
		return registry.PublishRequest{}, registry.Errorf(registry.Invalid, "multipart body has no boundary")
	}
	release, err := s.reserveBody(c, s.bodyLimit())
	if err != nil {
		return registry.PublishRequest{}, err
	}
	defer release()
	s.limitBody(c)
	mr := multipart.NewReader(c.Request.Body, boundary)
	var req registry.PublishRequest
	var file, content []byte
	var haveFile bool
	for parts := 0; ; parts++ {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return req, formError(err)
		}
		if parts >= maxFormParts {
			return req, registry.Errorf(registry.Invalid, "multipart body has more than %d parts", maxFormParts)
		}
		// No field may be longer than a whole document.
		value, err := io.ReadAll(io.LimitReader(part, s.svc.MaxBytes()+1))
		if err != nil {
			return req, formError(err)
		}
		if err := s.checkDocumentSize(len(value)); err != nil {
			return req, err
		}
		switch part.FormName() {
		case wire.FormFile:
			file, haveFile = value, true
			req.FileName = part.FileName()
		case wire.FormContent:
			content = value
		case wire.FormName:
			req.Name = string(value)
		case wire.FormDescription:
			req.Description = string(value)
		case wire.FormOwner:
			req.Owner = string(value)
		}
	}
	if haveFile {
		req.Content = file
	} else {
		req.Content = content
	}
	if len(req.Content) == 0 {
		return req, registry.Errorf(registry.Invalid, "the form needs a non-empty file field (a *.pact.md file) or content field")
	}
	return req, nil
}

// checkDocumentSize refuses a document over the size limit as soon as its
// length is known, before it is copied or parsed; packfmt enforces the same
// limit with the same message.
func (s *Server) checkDocumentSize(n int) error {
	if int64(n) > s.svc.MaxBytes() {
		return registry.Errorf(registry.TooLarge, "document is larger than the limit of %d bytes", s.svc.MaxBytes())
	}
	return nil
}

func formError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return readError(err)
	}
	// mime/multipart prefixes its messages with Go names ("multipart:
	// NextPart:"); the rest says what is wrong.
	msg := err.Error()
	for _, prefix := range []string{"multipart: ", "NextPart: "} {
		msg = strings.TrimPrefix(msg, prefix)
	}
	return registry.Errorf(registry.Invalid, "multipart body is malformed: %s", msg)
}

func (s *Server) decodeSignedPublish(c *gin.Context) (registry.SignedPublishRequest, error) {
	var body wire.SignedPublishRequest
	if err := s.decodeJSONBody(c, &body); err != nil {
		return registry.SignedPublishRequest{}, err
	}
	var missing []string
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"content", len(body.Content) > 0},
		{"timestamp", body.Timestamp != nil},
		{"nonce", body.Nonce != nil},
		{"fingerprint", body.Fingerprint != nil},
		{"signature", body.Signature != nil},
	} {
		if !f.set {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return registry.SignedPublishRequest{}, registry.Errorf(registry.Invalid, "missing required field(s): %s", strings.Join(missing, ", "))
	}
	if err := s.checkDocumentSize(len(body.Content)); err != nil {
		return registry.SignedPublishRequest{}, err
	}
	return registry.SignedPublishRequest{
		PublishRequest: registry.PublishRequest{
			Content: body.Content, Name: deref(body.Name), Description: deref(body.Description),
		},
		Timestamp:   *body.Timestamp,
		Nonce:       *body.Nonce,
		Fingerprint: *body.Fingerprint,
		Signature:   *body.Signature,
	}, nil
}

// reserveBody reserves budget for the body of c's request, which may be at
// most limit bytes long, before anything of it is read. A body declared
// larger than limit is refused at once.
func (s *Server) reserveBody(c *gin.Context, limit int64) (release func(), err error) {
	n := c.Request.ContentLength
	if n > limit {
		return nil, readError(&http.MaxBytesError{Limit: limit})
	}
	if n < 0 { // chunked: it may be as long as the limit
		n = limit
	}
	// Not c itself: a gin.Context is reused once the request is answered,
	// and the wait's timer may still look at its parent then.
	release, err = s.shared.Bodies.Reserve(c.Request.Context(), n)
	if err != nil {
		// Read the refused body to its end, through a small buffer: a
		// server that answers and closes while the client is still sending
		// makes the client see a broken pipe instead of the 503.
		_, _ = io.Copy(io.Discard, http.MaxBytesReader(c.Writer, c.Request.Body, limit))
		return nil, err
	}
	return release, nil
}

// readBody reads the whole body of r, at most limit bytes. A body of
// declared length is read into one buffer of exactly that size, so it
// costs its own size in memory once.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	body := http.MaxBytesReader(w, r.Body, limit)
	r.Body = body
	if n := r.ContentLength; n >= 0 && n <= limit {
		buf := make([]byte, n)
		if _, err := io.ReadFull(body, buf); err != nil {
			return nil, readError(err)
		}
		return buf, nil
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(body); err != nil {
		return nil, readError(err)
	}
	return buf.Bytes(), nil
}

// decodeStrict reads a JSON body of at most maxTrustBodyBytes into v and
// refuses fields not in fields, so a misspelt claim list is not ignored.
func (s *Server) decodeStrict(c *gin.Context, v any, fields []string, has string) error {
	return s.decodeStrictLimited(c, v, fields, has, maxTrustBodyBytes)
}

// decodeStrictLimited is decodeStrict for a body of at most limit bytes.
func (s *Server) decodeStrictLimited(c *gin.Context, v any, fields []string, has string, limit int64) error {
	raw, err := s.decodeJSONBodyRaw(c, v, limit)
	if err != nil {
		return err
	}
	var present map[string]json.RawMessage
	if err := json.Unmarshal(raw, &present); err != nil {
		return jsonError(err)
	}
	for name := range present {
		if !slices.ContainsFunc(fields, func(f string) bool { return foldKey(f) == foldKey(name) }) {
			return registry.Errorf(registry.Invalid, "field %q is not known: %s", clip.Text(name, 40), has)
		}
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
