// What GET /metrics answers (rc-server --metrics-listen, docs/metrics.md):
// the server's figures in Prometheus' text format, gathered at the moment
// of the request from what the metrics file is written from (the metrics
// board), the budget table (memory, per tenant), the content cache and the
// server's own counters. Tenants' figures carry a `tenant` label; the
// endpoint is the operator's, like the metrics file.
#ifndef RC_SERVER_SERVER_EXPOSITION_H
#define RC_SERVER_SERVER_EXPOSITION_H

#include <string>

namespace rc::server {

class ServerCore;

std::string serverExposition(ServerCore &core);

} // namespace rc::server

#endif
