#pragma once
// Stopping a run on SIGINT/SIGTERM: the first signal asks the suite to stop at the next row
// boundary (the current row finishes, or an isolated child is killed), so that the results are
// still written, with `complete: false`. The handler restores the default action, so a second
// signal ends the process at once (for a row that never returns).
namespace dnnbench {

void install_stop_signal_handlers();
// Whether a stop was asked for (by a signal, or by request_stop()).
bool stop_requested();
// The signal that asked for the stop; 0 when none did.
int stop_signal();
// As if `signal` had arrived (tests; the child-process poll loop).
void request_stop(int signal);

}  // namespace dnnbench
