#include "admission/lobby.h"
#include "rc/server/log.h"

namespace rc::server {

namespace {
// Between two looks at the table while someone waits: the added latency
// of an honest client's first message.
constexpr auto kVisitPause = std::chrono::microseconds(500);
} // namespace

Lobby::Lobby(int maxWaiting, int timeoutMs, Handoff handoff,
             std::function<bool()> ready)
    : maxWaiting_(size_t(std::max(maxWaiting, 1))), timeoutMs_(timeoutMs),
      handoff_(std::move(handoff)), ready_(std::move(ready)),
      thread_([this] { loop(); }) {}

Lobby::~Lobby() {
  {
    std::lock_guard<std::mutex> g(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Lobby::admit(std::unique_ptr<transport::Connection> conn) {
  {
    std::lock_guard<std::mutex> g(mu_);
    if (table_.size() >= maxWaiting_) {
      drop(table_.front(), "pushed out by a newer connection (" +
                               std::to_string(maxWaiting_) +
                               " wait for their first message already)");
      table_.pop_front();
    }
    table_.push_back({std::move(conn), Clock::now(), {}, false});
  }
  cv_.notify_all();
}

size_t Lobby::waiting() const {
  std::lock_guard<std::mutex> g(mu_);
  return table_.size();
}

void Lobby::drop(Entry &e, const std::string &why) {
  logDebug("connection from " + e.conn->peerDescription() +
           " closed before its session began: " + why);
  e.conn.reset();
}

void Lobby::loop() {
  std::unique_lock<std::mutex> g(mu_);
  while (!stop_) {
    if (table_.empty()) {
      cv_.wait(g, [&] { return stop_ || !table_.empty(); });
      continue;
    }
    bool busy = visit();
    if (!busy)
      cv_.wait_for(g, kVisitPause, [&] { return stop_; });
  }
  for (Entry &e : table_)
    drop(e, "server shutting down");
  table_.clear();
}

bool Lobby::visit() {
  bool busy = false;
  for (auto it = table_.begin(); it != table_.end();) {
    Entry &e = *it;
    if (!e.received) {
      // recv with no wait: one look at the connection, never blocking.
      transport::Status st = e.conn->recv(e.first, 0);
      if (st == transport::Status::Ok) {
        e.received = true;
        busy = true;
      } else if (st != transport::Status::Timeout) {
        drop(e, "client gone (" + e.conn->lastError() + ")");
        it = table_.erase(it);
        continue;
      }
    }
    if (e.received && ready_()) {
      handoff_(std::move(e.conn), std::move(e.first), e.arrived);
      it = table_.erase(it);
      busy = true;
      continue;
    }
    auto age = std::chrono::duration_cast<std::chrono::milliseconds>(
                   Clock::now() - e.arrived)
                   .count();
    if (age >= timeoutMs_) {
      drop(e, e.received ? "no session free to take its first message within " +
                               std::to_string(timeoutMs_) + " ms"
                         : "no first message within " +
                               std::to_string(timeoutMs_) + " ms");
      it = table_.erase(it);
      continue;
    }
    ++it;
  }
  return busy;
}

} // namespace rc::server
