#!/usr/bin/env bash
# The main job: set up, build, list what halo finds, stream frames through
# the pipeline on the devices found, then run the demo and the saxpy example.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
bash scripts/build.sh build -DCMAKE_BUILD_TYPE=Release
build/bin/halo-info
build/bin/halo-pipeline
build/bin/halo-demo
build/bin/halo-saxpy
