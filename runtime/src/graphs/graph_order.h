// The one order in which an executable graph runs its nodes. The server
// instantiates (and a client-side exec replays) a chain of nodes; any order
// that keeps every dependency of the application's graph is a valid
// schedule of it, at the cost of parallelism between its branches.
#ifndef RC_RT_GRAPH_ORDER_H
#define RC_RT_GRAPH_ORDER_H

#include "graphs/graph_state.h"

namespace rc::rt {

// Fills `out` with the non-empty nodes of `g` in dependency order: among the
// nodes whose dependencies have all been placed, the one created first. A
// graph built in dependency order (all cudaGraphAdd*Node allows) or
// captured keeps its creation order. `out->onClient` tells whether a node
// must run on the client. False, with `out` unchanged, when the
// dependencies form a cycle (cudaGraphAddDependencies can make one).
bool orderForExec(const Graph &g, Exec *out);

} // namespace rc::rt

#endif
