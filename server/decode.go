package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

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
	mt, _ := mediaType(c)
	if mt != "application/json" {
		return registry.Errorf(registry.UnsupportedMedia, "Content-Type must be application/json")
	}
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, limit)
	raw, err := io.ReadAll(c.Request.Body)
	if err != nil {
		return readError(err)
	}
	return decodeJSON(raw, v)
}

func decodeJSON(raw []byte, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return registry.Errorf(registry.Invalid, "request body is required")
	}
	if err := rejectDuplicateKeys(raw); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return registry.Errorf(registry.Invalid, "field %s must be a %s", typeErr.Field, jsonTypeName(typeErr.Type.Kind().String()))
		}
		return registry.Errorf(registry.Invalid, "request body is not valid JSON: %s", err.Error())
	}
	if dec.More() {
		return registry.Errorf(registry.Invalid, "request body holds data after the JSON object")
	}
	return nil
}

// rejectDuplicateKeys refuses objects that name a key twice: encoding/json
// would silently keep the last, so a proxy or signer that read the first
// could be shown one document while another is published.
func rejectDuplicateKeys(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	type frame struct {
		keys      map[string]bool
		expectKey bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return nil // syntax errors are reported by the real decode
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{':
				if top != nil && top.keys != nil {
					top.expectKey = true
				}
				stack = append(stack, &frame{keys: map[string]bool{}, expectKey: true})
			case '[':
				if top != nil && top.keys != nil {
					top.expectKey = true
				}
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
			}
			continue
		}
		if top == nil || top.keys == nil {
			continue
		}
		if top.expectKey {
			key := tok.(string)
			if top.keys[key] {
				return registry.Errorf(registry.Invalid, "request body names the field %q twice", key)
			}
			top.keys[key] = true
			top.expectKey = false
		} else {
			top.expectKey = true
		}
	}
}

func jsonTypeName(kind string) string {
	switch {
	case kind == "string" || kind == "ptr":
		return "string"
	case strings.HasPrefix(kind, "int"):
		return "whole number"
	}
	return kind
}

type publishBody struct {
	Content     *string `json:"content"`
	Name        *string `json:"name"`
	Description *string `json:"description"`
}

// decodePublish reads a publish request sent as JSON or as a multipart form.
func (s *Server) decodePublish(c *gin.Context) (registry.PublishRequest, error) {
	mt, params := mediaType(c)
	switch mt {
	case "application/json":
		var body publishBody
		if err := s.decodeJSONBody(c, &body); err != nil {
			return registry.PublishRequest{}, err
		}
		if body.Content == nil || *body.Content == "" {
			return registry.PublishRequest{}, registry.Errorf(registry.Invalid, "content is required: the full pack document")
		}
		return registry.PublishRequest{Content: []byte(*body.Content), Name: deref(body.Name), Description: deref(body.Description)}, nil
	case "multipart/form-data":
		return s.decodePublishForm(c, params["boundary"])
	case "":
		if c.Request.ContentLength == 0 {
			return registry.PublishRequest{}, registry.Errorf(registry.Invalid, "request body is required: send JSON {\"content\": ...} or a multipart form with a file field")
		}
	}
	return registry.PublishRequest{}, registry.Errorf(registry.UnsupportedMedia,
		"Content-Type must be application/json or multipart/form-data")
}

// decodePublishForm reads the fields file, content, name and description.
// When both file and content are sent, file wins.
func (s *Server) decodePublishForm(c *gin.Context, boundary string) (registry.PublishRequest, error) {
	if boundary == "" {
		return registry.PublishRequest{}, registry.Errorf(registry.Invalid, "multipart body has no boundary")
	}
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
		value, err := io.ReadAll(part)
		if err != nil {
			return req, formError(err)
		}
		switch part.FormName() {
		case "file":
			file, haveFile = value, true
			req.FileName = part.FileName()
		case "content":
			content = value
		case "name":
			req.Name = string(value)
		case "description":
			req.Description = string(value)
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

func formError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return readError(err)
	}
	return registry.Errorf(registry.Invalid, "multipart body is malformed: %s", err.Error())
}

type signedPublishBody struct {
	publishBody
	Timestamp   *int64  `json:"timestamp"`
	Nonce       *string `json:"nonce"`
	Fingerprint *string `json:"fingerprint"`
	Signature   *string `json:"signature"`
}

func (s *Server) decodeSignedPublish(c *gin.Context) (registry.SignedPublishRequest, error) {
	var body signedPublishBody
	if err := s.decodeJSONBody(c, &body); err != nil {
		return registry.SignedPublishRequest{}, err
	}
	var missing []string
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"content", body.Content != nil && *body.Content != ""},
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
	return registry.SignedPublishRequest{
		PublishRequest: registry.PublishRequest{
			Content: []byte(*body.Content), Name: deref(body.Name), Description: deref(body.Description),
		},
		Timestamp:   *body.Timestamp,
		Nonce:       *body.Nonce,
		Fingerprint: *body.Fingerprint,
		Signature:   *body.Signature,
	}, nil
}
