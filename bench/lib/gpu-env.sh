# Sourced, not run, by the bench/ shell runners once they are in the repository root: where the GPU
# machine's libraries and tools are. Nothing of one machine is written in; each is an environment
# variable with a discovery behind it:
#
#   GPU_RUN_PREFIX   the folder scripts/setup unpacked the .deb dependencies into (DNNBENCH_DEBS;
#                    default .deps of this checkout): its libraries go first on the loader path
#   NCU              Nsight Compute's ncu. Default: ncu on PATH, else beside nvcc or in
#                    $CUDA_HOME/bin, else the newest installed nsight-compute package's (dpkg), else
#                    the newest under NSIGHT_COMPUTE_ROOT (a folder of nsight-compute versions)
#
# It sets DEPS_LIB (that library folder, for commands that set their own LD_LIBRARY_PATH) and
# defines find_ncu (prints ncu's path, or nothing) and torch_cudnn_dir (PyTorch's cuDNN folder,
# the wheel's nvidia/cudnn, or nothing).

DEPS_LIB="$(realpath -m "${GPU_RUN_PREFIX:-.deps}")/usr/lib/x86_64-linux-gnu"
export LD_LIBRARY_PATH="$DEPS_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

find_ncu() {
  if [ -n "${NCU:-}" ]; then echo "$NCU"; return; fi
  command -v ncu && return
  local dir pkg found
  for dir in "$(dirname "$(command -v nvcc 2> /dev/null || echo .)")" ${CUDA_HOME:+"$CUDA_HOME/bin"}; do
    [ -x "$dir/ncu" ] && { echo "$dir/ncu"; return; }
  done
  if command -v dpkg-query > /dev/null; then
    pkg=$(dpkg-query -W -f='${Status} ${Package}\n' 'nsight-compute*' 2> /dev/null |
      awk '/install ok installed/ {print $NF}' | sort -V | tail -1)
    found=$([ -n "$pkg" ] && dpkg -L "$pkg" 2> /dev/null | grep -E '/ncu$' | head -1)
    [ -n "$found" ] && { echo "$found"; return; }
  fi
  [ -n "${NSIGHT_COMPUTE_ROOT:-}" ] && ls "$NSIGHT_COMPUTE_ROOT"/*/ncu 2> /dev/null | sort -V | tail -1
}

torch_cudnn_dir() {
  python3 -c "import nvidia.cudnn; print(list(nvidia.cudnn.__path__)[0])" 2> /dev/null
}
