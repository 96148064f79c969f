package client

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"unicode/utf8"

	"github.com/pact-registry/pact/pkg/routes"
	"github.com/pact-registry/pact/pkg/sshsign"
	"github.com/pact-registry/pact/pkg/wire"
)

// PublishRequest publishes a pack document with the client's API token.
type PublishRequest struct {
	// Content is the whole pack document (markdown with a pact:pack block).
	Content []byte
	// Name and Description override the document's own; "" keeps them.
	Name        string
	Description string
	// FileName, when set, is sent as the upload's file name, from which the
	// server derives the name of a document that names itself nowhere.
	FileName string
	// Owner is the user or organisation to publish into; "" for the
	// token's own account.
	Owner string
}

// Publish publishes a document with the client's token. The body is JSON;
// it is multipart (field "file") when FileName is set or when the content
// is not UTF-8, which JSON cannot carry unchanged (the server then says why
// it refuses it). Publishing is retried on transient failures: the server
// answers a repeat of identical content with the same package.
func (c *Client) Publish(ctx context.Context, req PublishRequest) (*PublishResult, error) {
	var body func(context.Context) (io.Reader, string, error)
	var err error
	if req.FileName != "" || !utf8.Valid(req.Content) {
		body, err = multipartBody(req)
	} else {
		body, err = jsonBody(wire.PublishRequest{
			Content: req.Content, Name: wire.Optional(req.Name), Description: wire.Optional(req.Description),
			Owner: wire.Optional(req.Owner),
		})
	}
	if err != nil {
		return nil, err
	}
	var out wire.PublishResult
	err = c.doJSON(ctx, request{method: http.MethodPost, path: routes.Publish, body: body, withToken: true, repeatable: true}, &out)
	if err != nil {
		return nil, err
	}
	return &PublishResult{Package: out.Package, Created: out.Created, Warnings: nonNil(out.Warnings), Published: published(out.Published)}, nil
}

func multipartBody(req PublishRequest) (func(context.Context) (io.Reader, string, error), error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	fileName := req.FileName
	if fileName == "" {
		fileName = "document.pact.md"
	}
	part, err := w.CreateFormFile(wire.FormFile, fileName)
	if err != nil {
		return nil, err
	}
	if _, err := part.Write(req.Content); err != nil {
		return nil, err
	}
	for field, value := range map[string]string{wire.FormName: req.Name, wire.FormDescription: req.Description, wire.FormOwner: req.Owner} {
		if value == "" {
			continue
		}
		if err := w.WriteField(field, value); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	data, contentType := buf.Bytes(), w.FormDataContentType()
	return func(context.Context) (io.Reader, string, error) {
		return bytes.NewReader(data), contentType, nil
	}, nil
}

// SignFunc signs the six-line publish message and returns the armored
// SSHSIG text (namespace "pact").
type SignFunc func(ctx context.Context, message []byte) (signature string, err error)

// SignedPublishRequest publishes a document authenticated by an SSH
// signature instead of a token.
type SignedPublishRequest struct {
	Content     []byte
	Name        string
	Description string
	// Fingerprint names the registered key that signs ("SHA256:...").
	Fingerprint string
	// Sign is called once per attempt with a message holding a fresh
	// timestamp and nonce, since the server accepts a nonce only once.
	Sign SignFunc
}

// PublishSigned publishes a document signed with an SSH key registered for
// the publishing account. No token is sent: the signature alone
// authenticates. Retried like Publish, with a new signature each attempt.
func (c *Client) PublishSigned(ctx context.Context, req SignedPublishRequest) (*PublishResult, error) {
	if req.Sign == nil {
		return nil, errors.New("signed publish: no signing function")
	}
	if !utf8.Valid(req.Content) {
		return nil, errors.New("signed publish: the document is not valid UTF-8")
	}
	body := func(ctx context.Context) (io.Reader, string, error) {
		timestamp := c.now().Unix()
		nonce := sshsign.NewNonce()
		msg, err := sshsign.Message(timestamp, nonce, req.Content, req.Name, req.Description)
		if err != nil {
			return nil, "", err
		}
		signature, err := req.Sign(ctx, msg)
		if err != nil {
			return nil, "", err
		}
		b, err := jsonBody(wire.SignedPublishRequest{
			Content: req.Content, Timestamp: &timestamp, Nonce: &nonce, Fingerprint: &req.Fingerprint,
			Signature: &signature, Name: wire.Optional(req.Name), Description: wire.Optional(req.Description),
		})
		if err != nil {
			return nil, "", err
		}
		return b(ctx)
	}
	var out wire.SignedPublishResult
	err := c.doJSON(ctx, request{method: http.MethodPost, path: routes.PublishSigned, body: body, repeatable: true}, &out)
	if err != nil {
		return nil, err
	}
	return &PublishResult{Package: out.Package, Created: out.Created, Auth: out.Auth, Warnings: nonNil(out.Warnings),
		Published: published(out.Published)}, nil
}

// published is nil for a registry that names no published version.
func published(v wire.PublishedVersion) *PublishedVersion {
	if v.Version == "" {
		return nil
	}
	return &v
}

// nonNil keeps the warnings a list in --json output even when an older
// server sent none.
func nonNil(warnings []string) []string {
	if warnings == nil {
		return []string{}
	}
	return warnings
}
