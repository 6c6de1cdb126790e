# syntax=docker/dockerfile:1
#
# Sudocode's container image: mcp-ruleset-server (the entrypoint), sudocode
# and coding-tools-mcp as static binaries on distroless, run as uid 65532.
#
#   docker build -t mcp-ruleset-server:latest \
#     --build-arg VERSION="$(git describe --tags --always --dirty)" \
#     --build-arg REVISION="$(git rev-parse HEAD)" .
#   docker run -i --rm -v sudocode-data:/data mcp-ruleset-server:latest
#
# `go run ./tools/image` builds the same image without Docker (on an empty
# base instead of distroless); internal/ociimage's tests keep the two in
# agreement. See "Container image" in README.md.

ARG GO_VERSION=1.26

FROM --platform=$BUILDPLATFORM golang:${GO_VERSION}-bookworm AS build
ARG TARGETOS=linux
ARG TARGETARCH
ARG VERSION=0.1.0-dev
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
# modernc.org/sqlite is pure Go: CGO_ENABLED=0 gives static binaries that
# need no libc.
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS="$TARGETOS" GOARCH="$TARGETARCH" \
    go build -trimpath -buildvcs=false \
      -ldflags "-s -w -X github.com/sudocode/sudocode/internal/cli.Version=${VERSION}" \
      -o /out/bin/ ./cmd/mcp-ruleset-server ./cmd/sudocode ./cmd/coding-tools-mcp \
 && mkdir -p /out/owned/data /out/owned/workspace

# static-debian12:nonroot: CA certificates, tzdata, /etc/passwd with the
# nonroot user (65532, home /home/nonroot), /tmp; no shell.
FROM gcr.io/distroless/static-debian12:nonroot
ARG VERSION=0.1.0-dev
ARG REVISION=
ARG SOURCE=https://github.com/sudocode/sudocode
LABEL org.opencontainers.image.title="mcp-ruleset-server" \
      org.opencontainers.image.description="Sudocode MCP servers: mcp-ruleset-server (the entrypoint), sudocode and coding-tools-mcp" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.url="${SOURCE}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
COPY --from=build /out/bin/ /usr/local/bin/
# /data (XDG_DATA_HOME: the embedded ruleset store is /data/sudocode/rulesets)
# and /workspace (the working directory), both the user's.
COPY --from=build --chown=65532:65532 /out/owned/ /
ENV PATH=/usr/local/bin HOME=/home/nonroot XDG_DATA_HOME=/data
USER 65532:65532
WORKDIR /workspace
ENTRYPOINT ["/usr/local/bin/mcp-ruleset-server"]
