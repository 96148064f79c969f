package blobs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/pact-registry/pact/server/registry"
)

// Credentials sign the requests to S3-compatible storage; pactd reads
// them from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN.
type Credentials struct {
	AccessKeyID, SecretAccessKey, SessionToken string
}

// S3 keeps each blob as the object <prefix><name> of a bucket on
// S3-compatible object storage (AWS S3, Cloudflare R2, MinIO, SeaweedFS,
// versitygw), through aws-sdk-go-v2's S3 client. An object is whole once
// PutObject answers: S3 never shows a half-written one.
type S3 struct {
	client         *s3.Client
	bucket, prefix string
}

// s3Timeout bounds each request to the object storage: a store that
// stopped answering fails the publish (503) instead of holding it.
const s3Timeout = 20 * time.Second

// s3Target is what an s3:// URL names.
type s3Target struct {
	bucket, prefix, endpoint, region string
}

func parseS3URL(rawURL string) (s3Target, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "s3" || u.Host == "" || u.User != nil || u.Fragment != "" {
		return s3Target{}, errors.New("an S3 URL is s3://bucket/prefix?endpoint=https://host:port&region=r")
	}
	t := s3Target{bucket: u.Host, prefix: strings.TrimPrefix(u.Path, "/"), region: "us-east-1"}
	if t.prefix != "" && !strings.HasSuffix(t.prefix, "/") {
		t.prefix += "/"
	}
	q := u.Query()
	for key := range q {
		if key != "endpoint" && key != "region" {
			return s3Target{}, fmt.Errorf("unknown parameter %q: an S3 URL takes endpoint and region", key)
		}
	}
	if r := q.Get("region"); r != "" {
		t.region = r
	}
	if e := q.Get("endpoint"); e != "" {
		if !strings.Contains(e, "://") {
			e = "https://" + e
		}
		eu, err := url.Parse(e)
		if err != nil || (eu.Scheme != "http" && eu.Scheme != "https") || eu.Host == "" {
			return s3Target{}, fmt.Errorf("endpoint %q is not an http(s) address such as https://s3.example.com", q.Get("endpoint"))
		}
		t.endpoint = e
	}
	return t, nil
}

// OpenS3 opens the bucket rawURL names and checks that it answers.
// Without an endpoint it is AWS's S3 of the region; with one (any other
// S3-compatible store) requests use path-style addresses.
func OpenS3(ctx context.Context, rawURL string, creds Credentials) (*S3, error) {
	t, err := parseS3URL(rawURL)
	if err != nil {
		return nil, err
	}
	if creds.AccessKeyID == "" || creds.SecretAccessKey == "" {
		return nil, errors.New("no credentials for the S3 store: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
	}
	cfg := aws.Config{
		Region: t.region,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: creds.AccessKeyID, SecretAccessKey: creds.SecretAccessKey,
				SessionToken: creds.SessionToken, Source: "pactd"}, nil
		}),
		// Checksums only where the API requires them: several
		// S3-compatible stores refuse the newer trailing checksums.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
		RetryMaxAttempts:           2,
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		if t.endpoint != "" {
			o.BaseEndpoint = aws.String(t.endpoint)
			o.UsePathStyle = true
		}
	})
	b := &S3{client: client, bucket: t.bucket, prefix: t.prefix}
	ctx, cancel := context.WithTimeout(ctx, s3Timeout)
	defer cancel()
	if _, err := client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(t.bucket)}); err != nil {
		return nil, fmt.Errorf("bucket %s does not answer: %w", t.bucket, err)
	}
	return b, nil
}

func (b *S3) key(name string) *string { return aws.String(b.prefix + name) }

// Put writes the object.
func (b *S3) Put(ctx context.Context, name string, content []byte) error {
	if err := checkName(name); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s3Timeout)
	defer cancel()
	_, err := b.client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(b.bucket), Key: b.key(name),
		Body: bytes.NewReader(content), ContentLength: aws.Int64(int64(len(content)))})
	return err
}

// Open reads the whole object: documents are small (the publish limit),
// and the service keeps them in memory once checked.
func (b *S3) Open(ctx context.Context, name string) (io.ReadSeekCloser, int64, error) {
	if err := checkName(name); err != nil {
		return nil, 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, s3Timeout)
	defer cancel()
	out, err := b.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(b.bucket), Key: b.key(name)})
	if isNotFound(err) {
		return nil, 0, registry.ErrBlobNotFound
	}
	if err != nil {
		return nil, 0, err
	}
	defer out.Body.Close()
	content, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, 0, err
	}
	return readSeekNopCloser{bytes.NewReader(content)}, int64(len(content)), nil
}

func isNotFound(err error) bool {
	var api smithy.APIError
	if errors.As(err, &api) {
		switch api.ErrorCode() {
		case "NoSuchKey", "NotFound":
			return true
		}
	}
	return false
}

type readSeekNopCloser struct{ *bytes.Reader }

func (readSeekNopCloser) Close() error { return nil }

// Delete removes the object; S3 answers a missing one as deleted.
func (b *S3) Delete(ctx context.Context, name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s3Timeout)
	defer cancel()
	_, err := b.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(b.bucket), Key: b.key(name)})
	return err
}

// List lists the objects under the prefix, a page of up to 1,000 at a
// time; keys that are not blob names are passed over.
func (b *S3) List(ctx context.Context, fn func(registry.BlobInfo) error) error {
	pages := s3.NewListObjectsV2Paginator(b.client, &s3.ListObjectsV2Input{Bucket: aws.String(b.bucket), Prefix: aws.String(b.prefix)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return err
		}
		for _, o := range page.Contents {
			name := strings.TrimPrefix(aws.ToString(o.Key), b.prefix)
			if !registry.IsBlobName(name) {
				continue
			}
			info := registry.BlobInfo{Name: name, Size: aws.ToInt64(o.Size)}
			if o.LastModified != nil {
				info.ModTime = *o.LastModified
			}
			if err := fn(info); err != nil {
				return err
			}
		}
	}
	return nil
}

// Key is blob name's object key, prefix and name: what the bucket's public
// address serves it at.
func (b *S3) Key(name string) string { return b.prefix + name }
