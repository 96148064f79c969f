// Package apitest is the HTTP client every test suite of pact's interface
// uses. Each response it returns has been checked against the OpenAPI
// document in server/openapi: route, status, headers, Content-Type and body
// schema. A response the document does not describe fails the test, so the
// document and the server cannot drift apart unnoticed.
package apitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// Client sends requests to one running server (a real listener, such as an
// httptest.Server) and validates every answer.
type Client struct {
	t       testing.TB
	base    *url.URL
	http    *http.Client
	checker *checker
}

// FileField is one file part of a multipart form.
type FileField struct {
	Name    string // the file name the part carries
	Content []byte
}

// Response is an answer, read in full.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// New returns a client of the server at baseURL ("http://127.0.0.1:PORT").
func New(t testing.TB, baseURL string) *Client {
	t.Helper()
	base, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || base.Scheme == "" || base.Host == "" {
		t.Fatalf("apitest: base URL %q is not an absolute URL", baseURL)
	}
	chk, err := sharedChecker()
	if err != nil {
		t.Fatalf("apitest: %v", err)
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(transport.CloseIdleConnections)
	return &Client{
		t:    t,
		base: base,
		http: &http.Client{
			Transport: transport,
			Timeout:   30 * time.Second,
			// The harness checks what the server says, so redirects are
			// returned as they are, not followed.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		checker: chk,
	}
}

// URL returns the absolute address of path ("/api/me?x=1") on the server.
func (c *Client) URL(path string) string { return c.base.String() + path }

// Do sends req, reads the whole answer and validates it against openapi.json;
// every mismatch is reported with t.Errorf. A req whose URL has no host is
// sent to the client's server.
func (c *Client) Do(req *http.Request) *Response {
	c.t.Helper()
	if req.URL.Host == "" {
		req.URL = c.base.ResolveReference(&url.URL{Path: c.base.Path + req.URL.Path, RawQuery: req.URL.RawQuery})
	}
	httpResp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("apitest: %s %s: %v", req.Method, req.URL, err)
		return nil
	}
	defer httpResp.Body.Close()
	body, err := io.ReadAll(httpResp.Body)
	if err != nil {
		c.t.Fatalf("apitest: %s %s: reading the body: %v", req.Method, req.URL, err)
		return nil
	}
	resp := &Response{Status: httpResp.StatusCode, Header: httpResp.Header, Body: body}

	routed := c.routed(req)
	operationID, problems := c.checker.check(routed, resp)
	if len(problems) > 0 {
		where := "openapi.json"
		if operationID != "" {
			where = "openapi.json (operation " + operationID + ")"
		}
		c.t.Errorf("apitest: %s %s -> %d does not match %s:\n  - %s\n  body: %s",
			req.Method, routed.URL.RequestURI(), resp.Status, where, strings.Join(problems, "\n  - "), excerpt(body))
	}
	return resp
}

// routed is req as the router of the document sees it: its path relative to
// the service's root.
func (c *Client) routed(req *http.Request) *http.Request {
	if c.base.Path == "" {
		return req
	}
	r := req.Clone(req.Context())
	u := *req.URL
	u.Path = strings.TrimPrefix(u.Path, c.base.Path)
	u.RawPath = ""
	r.URL = &u
	return r
}

// Get sends GET path with the given headers ("Name: value").
func (c *Client) Get(path string, headers ...string) *Response {
	c.t.Helper()
	return c.Do(c.newRequest(http.MethodGet, path, nil, headers))
}

// Head sends HEAD path with the given headers ("Name: value").
func (c *Client) Head(path string, headers ...string) *Response {
	c.t.Helper()
	return c.Do(c.newRequest(http.MethodHead, path, nil, headers))
}

// Delete sends DELETE path with the given headers ("Name: value").
func (c *Client) Delete(path string, headers ...string) *Response {
	c.t.Helper()
	return c.Do(c.newRequest(http.MethodDelete, path, nil, headers))
}

// Post sends POST path with a body of the given Content-Type as it is: for
// bodies that are not JSON (415 cases) or deliberately broken.
func (c *Client) Post(path, contentType string, body []byte, headers ...string) *Response {
	c.t.Helper()
	req := c.newRequest(http.MethodPost, path, bytes.NewReader(body), nil)
	req.Header.Set("Content-Type", contentType)
	setHeaders(c.t, req, headers)
	return c.Do(req)
}

// PostJSON sends POST path with body encoded as JSON and Content-Type
// application/json (a header argument may replace it). A []byte or
// json.RawMessage body is sent as it is, so malformed JSON can be tested.
func (c *Client) PostJSON(path string, body any, headers ...string) *Response {
	c.t.Helper()
	var data []byte
	switch b := body.(type) {
	case []byte:
		data = b
	case json.RawMessage:
		data = b
	default:
		var err error
		if data, err = json.Marshal(body); err != nil {
			c.t.Fatalf("apitest: encoding the JSON body of POST %s: %v", path, err)
			return nil
		}
	}
	return c.Post(path, "application/json", data, headers...)
}

// PutJSON sends PUT path with body encoded as JSON.
func (c *Client) PutJSON(path string, body any, headers ...string) *Response {
	c.t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		c.t.Fatalf("apitest: encoding the JSON body of PUT %s: %v", path, err)
		return nil
	}
	req := c.newRequest(http.MethodPut, path, bytes.NewReader(data), append([]string{"Content-Type: application/json"}, headers...))
	return c.Do(req)
}

// PatchJSON sends PATCH path with body encoded as JSON.
func (c *Client) PatchJSON(path string, body any, headers ...string) *Response {
	c.t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		c.t.Fatalf("apitest: encoding the JSON body of PATCH %s: %v", path, err)
		return nil
	}
	req := c.newRequest(http.MethodPatch, path, bytes.NewReader(data), append([]string{"Content-Type: application/json"}, headers...))
	return c.Do(req)
}

// PostMultipart sends POST path as multipart/form-data with text fields and
// file parts (form field name → file), in name order.
func (c *Client) PostMultipart(path string, fields map[string]string, files map[string]FileField, headers ...string) *Response {
	c.t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, name := range sortedKeys(fields) {
		if err := w.WriteField(name, fields[name]); err != nil {
			c.t.Fatalf("apitest: writing form field %q: %v", name, err)
		}
	}
	for _, name := range sortedKeys(files) {
		part, err := w.CreateFormFile(name, files[name].Name)
		if err == nil {
			_, err = part.Write(files[name].Content)
		}
		if err != nil {
			c.t.Fatalf("apitest: writing form file %q: %v", name, err)
		}
	}
	if err := w.Close(); err != nil {
		c.t.Fatalf("apitest: closing the multipart body: %v", err)
	}
	return c.Post(path, w.FormDataContentType(), buf.Bytes(), headers...)
}

func (c *Client) newRequest(method, path string, body io.Reader, headers []string) *http.Request {
	c.t.Helper()
	req, err := http.NewRequest(method, c.URL(path), body)
	if err != nil {
		c.t.Fatalf("apitest: %s %s: %v", method, path, err)
	}
	setHeaders(c.t, req, headers)
	return req
}

func setHeaders(t testing.TB, req *http.Request, headers []string) {
	t.Helper()
	for _, h := range headers {
		name, value, ok := strings.Cut(h, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			t.Fatalf("apitest: header %q is not \"Name: value\"", h)
		}
		value = strings.TrimSpace(value)
		if strings.EqualFold(name, "Host") {
			req.Host = value
			continue
		}
		req.Header.Set(name, value)
	}
}

// JSON decodes the body as a JSON object; a body that is not one fails the test.
func (r *Response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	r.Decode(t, &m)
	return m
}

// Decode decodes the body as JSON into v; a body that does not decode fails the test.
func (r *Response) Decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("apitest: decoding the %d answer into %T: %v\n  body: %s", r.Status, v, err, excerpt(r.Body))
	}
}

// excerpt keeps failure messages readable when a body is large.
func excerpt(body []byte) string {
	const max = 2048
	if len(body) == 0 {
		return "(empty)"
	}
	if len(body) > max {
		return fmt.Sprintf("%s… (%d bytes in all)", body[:max], len(body))
	}
	return string(body)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
