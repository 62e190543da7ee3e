#include "rc/server/waiting_context.h"

namespace rc::server {

WaitingContext::~WaitingContext() { stop(); }

void WaitingContext::put(std::unique_ptr<DeviceContext> ctx) {
  std::lock_guard<std::mutex> lock(mutex_);
  ctx_ = std::move(ctx);
}

void WaitingContext::keepOneReady(
    std::function<std::unique_ptr<DeviceContext>()> make) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (maker_.joinable())
    return;
  make_ = std::move(make);
  stopping_ = false;
  maker_ = std::thread([this] { makeWhileWanted(); });
}

void WaitingContext::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  taken_.notify_all();
  if (maker_.joinable())
    maker_.join();
  std::unique_ptr<DeviceContext> left;
  std::lock_guard<std::mutex> lock(mutex_);
  left = std::move(ctx_);
}

std::unique_ptr<DeviceContext> WaitingContext::take() {
  std::unique_ptr<DeviceContext> ctx;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ctx = std::move(ctx_);
    tryAgain_ = true;
  }
  taken_.notify_all();
  return ctx;
}

void WaitingContext::makeWhileWanted() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    taken_.wait(lock, [&] { return stopping_ || (!ctx_ && tryAgain_); });
    if (stopping_)
      return;
    lock.unlock();
    std::unique_ptr<DeviceContext> made = make_();
    lock.lock();
    if (!made) {
      tryAgain_ = false;
      continue;
    }
    if (stopping_ || ctx_) {
      // Destroyed without the lock: destroying a context takes a while.
      lock.unlock();
      made.reset();
      lock.lock();
      continue;
    }
    ctx_ = std::move(made);
  }
}

} // namespace rc::server
