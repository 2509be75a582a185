# Writes OUTPUT from INPUT with the source tree's git revision; run at every build (the
# dnnbench_git_revision target), so that a binary rebuilt after a commit names that commit, not
# the one its build directory was configured at. configure_file rewrites OUTPUT only when the text
# changes: an unchanged revision recompiles nothing. "+dirty": tracked files differ from the
# commit, so the commit alone does not say which code made a result.
#   cmake -DSOURCE_DIR=... -DINPUT=... -DOUTPUT=... -P git_revision.cmake
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY "${SOURCE_DIR}"
                OUTPUT_VARIABLE DNNBENCH_GIT_REVISION OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(DNNBENCH_GIT_REVISION)
  execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY "${SOURCE_DIR}"
                  OUTPUT_VARIABLE changed OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(changed)
    string(APPEND DNNBENCH_GIT_REVISION "+dirty")
  endif()
else()
  set(DNNBENCH_GIT_REVISION "unknown")
endif()
configure_file("${INPUT}" "${OUTPUT}" @ONLY)
