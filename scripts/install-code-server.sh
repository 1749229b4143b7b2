#!/usr/bin/env bash
# Installs what the end-to-end tests need: Debian's chromium, ripgrep and libkrb5-dev,
# and code-server (a real VS Code with a Node extension host) in
# .tools/code-server/ (HOOKPILOT_E2E_TOOLS_DIR overrides, e.g. for a CI cache).
# Idempotent: a stamp file with the versions makes a repeated run a no-op.
#
# code-server's own postinstall refuses to run as root and downloads ripgrep, so it is
# skipped and its steps are done here by hand.
set -euo pipefail

CODE_SERVER_VERSION="4.100.3"
STAMP_TEXT="code-server@${CODE_SERVER_VERSION}"
# git and python3: the suites run real repositories (AutoCommit) and python hooks and servers.
APT_PACKAGES=(libkrb5-dev ripgrep chromium git python3)

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS_DIR="${HOOKPILOT_E2E_TOOLS_DIR:-$ROOT/.tools/code-server}"
STAMP_FILE="$TOOLS_DIR/.installed"
VSCODE_DIR="$TOOLS_DIR/node_modules/code-server/lib/vscode"
NPM_FLAGS=(--no-audit --no-fund --loglevel=error)

export DEBIAN_FRONTEND=noninteractive
export npm_config_update_notifier=false

started=$SECONDS
step() { printf '[setup:e2e] %s\n' "$*"; }
die() { printf '[setup:e2e] error: %s\n' "$*" >&2; exit 1; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo -n "$@"; fi
}

is_installed_deb() {
  [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

install_debian_packages() {
  local missing=()
  for pkg in "${APT_PACKAGES[@]}"; do
    is_installed_deb "$pkg" || missing+=("$pkg")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    step "Debian packages present: ${APT_PACKAGES[*]}"
    return
  fi
  step "installing Debian packages: ${missing[*]}"
  # Another apt run (a parallel setup, unattended upgrades) may hold the lock: wait for it.
  local lock_wait=(-o DPkg::Lock::Timeout=600)
  as_root apt-get "${lock_wait[@]}" update -qq
  as_root apt-get "${lock_wait[@]}" install -y -qq "${missing[@]}" </dev/null >/dev/null
  for pkg in "${missing[@]}"; do
    is_installed_deb "$pkg" || die "Debian package $pkg did not install"
  done
}

tools_are_current() {
  [ -f "$STAMP_FILE" ] && [ "$(cat "$STAMP_FILE")" = "$STAMP_TEXT" ] \
    && [ -f "$TOOLS_DIR/node_modules/code-server/out/node/entry.js" ]
}

install_tools() {
  step "installing $STAMP_TEXT into ${TOOLS_DIR#"$ROOT"/}"
  rm -rf "$TOOLS_DIR"
  mkdir -p "$TOOLS_DIR"
  # Its own package.json keeps npm from walking up and installing into the project.
  printf '{ "name": "hookpilot-e2e-tools", "private": true }\n' >"$TOOLS_DIR/package.json"

  step "npm install code-server (scripts skipped)"
  (cd "$TOOLS_DIR" && npm install "${NPM_FLAGS[@]}" --ignore-scripts "code-server@${CODE_SERVER_VERSION}")

  step "npm install VS Code's production dependencies (scripts skipped)"
  (cd "$VSCODE_DIR" && npm install "${NPM_FLAGS[@]}" --omit=dev --ignore-scripts)

  step "using Debian's ripgrep for VS Code search"
  mkdir -p "$VSCODE_DIR/node_modules/@vscode/ripgrep/bin"
  cp "$(command -v rg)" "$VSCODE_DIR/node_modules/@vscode/ripgrep/bin/rg"

  step "building VS Code's native modules (node-pty, kerberos, ...)"
  # node-pty's install script calls `npx node-gyp`, which must not stop to ask.
  (cd "$VSCODE_DIR" && npm_config_yes=true npm rebuild "${NPM_FLAGS[@]}")

  step "linking the files code-server's postinstall would link"
  (cd "$VSCODE_DIR" \
    && ln -sfn node_modules node_modules.asar \
    && ln -sfn code-linux.sh bin/remote-cli/code-server \
    && ln -sfn browser-linux.sh bin/helpers/browser.sh)

  step "building argon2"
  (cd "$TOOLS_DIR" && npm rebuild "${NPM_FLAGS[@]}" argon2)

  step "checking that code-server starts"
  local version
  # --config /dev/null: otherwise code-server writes a config file into ~/.config.
  version="$(node "$TOOLS_DIR/node_modules/code-server/out/node/entry.js" --config /dev/null --version)"
  case "$version" in
    "$CODE_SERVER_VERSION"*) ;;
    *) die "code-server --version printed '$version'" ;;
  esac

  printf '%s' "$STAMP_TEXT" >"$STAMP_FILE"
}

# Two setups at once (parallel jobs on one checkout) would delete each other's install.
mkdir -p "$(dirname "$TOOLS_DIR")"
exec 9>"$TOOLS_DIR.lock"
flock 9

install_debian_packages
if tools_are_current; then
  step "$STAMP_TEXT already installed"
else
  install_tools
fi
step "ready in $((SECONDS - started)) s: chromium at $(command -v chromium), code-server in ${TOOLS_DIR#"$ROOT"/}"
