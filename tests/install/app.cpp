// SPDX-License-Identifier: MIT
/*
 * tests/install/app.cpp - the C++ twin of app.c (tests/install/installed.sh):
 * std::thread and std::mutex, typed events through RTR_TRACE, built with
 * g++ -std=c++17 against the installed headers.  Each thread writes EVENTS
 * events inst:work with its gettid() and pid and prints "tid N".
 */
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>
#include <sys/syscall.h>
#include <unistd.h>
#include <ringtrace/event.h>

#define INST_WORK(F) F(u32, tid) F(u32, pid) F(u32, seq)
RTR_EVENT_DECLARE(inst, work, INST_WORK)
RTR_EVENT_DEFINE(inst, work, INST_WORK)

namespace {

constexpr int threads = 4;
constexpr uint32_t events = 100;
std::mutex out_lock;

void worker()
{
	uint32_t tid = static_cast<uint32_t>(syscall(SYS_gettid));

	{
		std::lock_guard<std::mutex> g(out_lock);
		std::printf("tid %u\n", tid);
	}
	for (uint32_t i = 0; i < events; i++)
		RTR_TRACE(inst, work, .tid = tid, .pid = static_cast<uint32_t>(getpid()), .seq = i);
}

} // namespace

int main()
{
	std::vector<std::thread> pool;

	if (!rtr_tracing())
		std::fprintf(stderr, "app: not tracing (run it under ringtrace record)\n");
	for (int i = 0; i < threads; i++)
		pool.emplace_back(worker);
	for (auto &t : pool)
		t.join();
	return 0;
}
