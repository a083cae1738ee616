# syntax=docker/dockerfile:1
#
# The agentconf tool in a small image:
#
#   docker build -t agentconf .
#   docker run --rm -v "$PWD:/work" agentconf report /work/agentconf-results.jsonl --format markdown
#
# What the image is for: agentconf's own commands (`report`, `verify`, `digest`, `rules`,
# `vectors`, and `run` of the reference or `run -- agentconf impl`), implementations copied into
# an image built FROM this one, and the CI step integrations/agentconf-ci.sh (installed at
# /usr/local/share/agentconf/agentconf-ci.sh; the GitLab template can use it). It holds no
# interpreter: an implementation written in Python, Node or Java needs an image that adds one
# (FROM this image, `USER root`, install it, `USER 10001:10001` again).
#
# Base images are pinned by tag, not by digest: pin them by digest in a build that must be
# reproducible. crates/*/Cargo.toml's rust-version is the oldest toolchain that builds agentconf;
# the builder uses a newer one.

FROM rust:1.95-slim-bookworm AS builder
WORKDIR /src
# The whole workspace (see .dockerignore): cargo needs every member's manifest, and the
# corpus, rule catalogue and schemas are compiled into the binary from crates/.
COPY . .
# --locked: the dependencies Cargo.lock names, or the build fails.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    cargo build --release --locked -p agentconf-cli \
    && ./target/release/agentconf --version

FROM debian:bookworm-slim
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="agentconf" \
      org.opencontainers.image.description="Conformance suite for AER-1 and GRP, two individual Internet-Drafts (not RFCs, not IETF-endorsed)" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="https://example.invalid/agentconf" \
      org.opencontainers.image.base.name="docker.io/library/debian:bookworm-slim"
# A user of its own: nothing in the image runs as root.
RUN groupadd --gid 10001 agentconf \
    && useradd --uid 10001 --gid 10001 --create-home --home-dir /home/agentconf agentconf \
    && mkdir -p /work \
    && chown agentconf:agentconf /work
COPY --from=builder /src/target/release/agentconf /usr/local/bin/agentconf
COPY integrations/agentconf-ci.sh /usr/local/share/agentconf/agentconf-ci.sh
# Numeric, so that a runtime that checks for a non-root user (Kubernetes' runAsNonRoot) can tell.
USER 10001:10001
WORKDIR /work
ENTRYPOINT ["agentconf"]
CMD ["--help"]
