// Process-wide settings every tensord binary applies first thing in main().
#ifndef TENSORD_RUNTIME_UTIL_PROCESS_SETUP_H_
#define TENSORD_RUNTIME_UTIL_PROCESS_SETUP_H_

namespace tensord {

// Turns off Abseil's mutex deadlock detection, which Debian's Abseil build leaves on: it
// records every lock order in a global graph under a global lock, and a graph run creates and
// locks mutexes per call (a tenth of a small RNN model's run time). Call before any thread
// starts.
void SetUpProcess();

}  // namespace tensord

#endif  // TENSORD_RUNTIME_UTIL_PROCESS_SETUP_H_
