#include "graphs/graph_order.h"

#include <functional>
#include <queue>

namespace rc::rt {

bool orderForExec(const Graph &g, Exec *out) {
  const size_t n = g.nodes.size();
  std::vector<uint32_t> waiting(n);           // unplaced dependencies
  std::vector<std::vector<uint32_t>> next(n); // reverse edges
  for (size_t i = 0; i < n; ++i) {
    waiting[i] = uint32_t(g.deps[i].size());
    for (uint32_t d : g.deps[i])
      next[d].push_back(uint32_t(i));
  }
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> ready;
  for (size_t i = 0; i < n; ++i)
    if (waiting[i] == 0)
      ready.push(uint32_t(i));
  Exec exec;
  size_t placed = 0;
  while (!ready.empty()) {
    uint32_t i = ready.top();
    ready.pop();
    ++placed;
    for (uint32_t j : next[i])
      if (--waiting[j] == 0)
        ready.push(j);
    if (g.nodes[i].empty())
      continue; // orders others only
    exec.nodes.push_back(g.nodes[i]);
    exec.handles.push_back(g.handles[i]);
    exec.owners.push_back(g.owners.empty() ? g.handles[i] : g.owners[i]);
    exec.onClient |= g.nodes[i].runsOnClient();
  }
  if (placed != n)
    return false;
  *out = std::move(exec);
  return true;
}

} // namespace rc::rt
