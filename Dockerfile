# syntax=docker/dockerfile:1
# pactd in an image holding nothing else (docs/operations.md, Containers and
# systemd): a static binary, the CA certificates OIDC issuers are reached
# with, an empty /tmp for SQLite's temporary files, and /data for the
# database. No base image is pulled at run time: the final stage is scratch.
#
#   docker build -t pactd .
#   docker run -p 8080:8080 -v pact-data:/data \
#     -e PACTD_BASE_URL=https://pact.example.com pactd
#
# Set PACTD_BASE_URL to the registry's public URL before the first start:
# links use it, and the transparency log is named after its host then, for
# good (clients pin the name). Without it the log is named localhost's, and
# pactd warns at every start.
#   docker run --rm -i -v pact-data:/data pactd user create \
#     --email you@example.com --username you --password-stdin
#
# The build flags are the ones TestStaticBinaryInEmptyRoot (contrib/deploy_test.go)
# checks: it builds the same binary and serves /healthz from a root file
# system holding only what this image ships.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
# cgo links SQLite (mattn/go-sqlite3) and glibc statically; netgo and
# osusergo keep glibc's NSS (which cannot be linked statically) out.
RUN CGO_ENABLED=1 go build -trimpath \
      -tags 'nomsgpack sqlite_fts5 netgo osusergo sqlite_omit_load_extension' \
      -ldflags "-s -w -linkmode external -extldflags -static -X main.version=${VERSION}" \
      -o /out/pactd ./cmd/pactd \
 && mkdir -p /out/tmp /out/data
RUN /out/pactd version

FROM scratch
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/pactd /pactd
COPY --from=build --chmod=1777 /out/tmp /tmp
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
WORKDIR /data
ENV PACTD_ADDR=:8080 PACTD_DB=/data/pact.db
EXPOSE 8080
VOLUME /data
# No shell or curl in the image: pactd checks itself (GET /healthz on PACTD_ADDR).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s CMD ["/pactd", "healthcheck"]
ENTRYPOINT ["/pactd"]
CMD ["serve"]
