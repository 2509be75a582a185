#!/usr/bin/env bash
# Run here (a machine with Debian's package registry): downloads the .deb files of the build
# dependencies the GPU machine lacks into .debs/ (git-ignored). There, with the folder carried
# along, `DNNBENCH_DEBS=.debs scripts/run-samples` (or scripts/test, scripts/gpu-run.sh) unpacks them
# into .deps/ through scripts/setup. The GPU machine has CUDA, cuDNN, g++, CMake and ninja but no registry.
set -euo pipefail
cd "$(dirname "$0")/.."

# Header-only or small libraries the core and tests need. libfmt9 is fmt's shared library
# (libfmt-dev's .so links to it); toml++ (recipes) and libarchive (graph archives) with their
# shared libraries.
PACKAGES=(nlohmann-json3-dev libcli11-dev libfmt-dev libfmt9 libgtest-dev libtomlplusplus-dev libtomlplusplus3
          libarchive-dev libarchive13
          libonnx-dev libonnx1 libonnxifi libprotobuf-dev libprotobuf32 libprotobuf-lite32  # the ONNX importer
          libdnnl-dev libdnnl2 ocl-icd-opencl-dev ocl-icd-libopencl1 opencl-c-headers opencl-clhpp-headers)  # onednn
# Shared libraries libarchive needs that the GPU machine's own system may already have: kept
# apart (.debs/fallback) and unpacked there only when its system lacks the soname, so that they
# never shadow the system's copies.
FALLBACK=(libnettle8 libxml2 libicu72)

mkdir -p .debs
cd .debs
rm -f ./*.deb
apt-get download "${PACKAGES[@]}"
mkdir -p fallback
(cd fallback && rm -f ./*.deb && apt-get download "${FALLBACK[@]}")
ls -l ./*.deb
echo "gpu-prepare: $(ls ./*.deb | wc -l) packages in .debs/; pass carry: [\".debs\"] to the device run"
