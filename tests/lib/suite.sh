# shellcheck shell=bash
# The start of a server suite, sourced as its first command:
#   source "$(dirname "$0")/../lib/suite.sh"
# strict mode, tests/lib/cluster.sh, a workspace whose servers are stopped
# and which is removed when the suite exits (sf_init_workspace), and the
# extension built and staged (sf_stage). Suites that stage otherwise, or
# not at all, source cluster.sh themselves.
set -euo pipefail
# shellcheck source=tests/lib/cluster.sh
source "$(dirname "${BASH_SOURCE[0]}")/cluster.sh"
sf_init_workspace
sf_stage
