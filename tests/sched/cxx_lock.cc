// SPDX-License-Identifier: MIT
/*
 * rtr-cxx-lock - a std::mutex on main's stack waited for once, through
 * std::lock_guard, built without optimisation (tests/Kbuild): the call to
 * pthread_mutex_lock() is then in libstdc++'s headers (__gthread_mutex_lock
 * in gthr-default.h, called by std::mutex::lock(), called by the
 * lock_guard's constructor), three calls below this file's line.  Under
 * `ringtrace record --pthread` the mutex is named by that line
 * (reader/symbols.c, tr_syms_site()), which it prints: "site LINE".
 */
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>

int main()
{
	std::mutex m;
	std::atomic<bool> held{ false };
	std::thread holder([&] {
		std::lock_guard<std::mutex> g(m);

		held = true;
		std::this_thread::sleep_for(std::chrono::milliseconds(30));
	});

	while (!held)
		std::this_thread::sleep_for(std::chrono::microseconds(100));
	std::this_thread::sleep_for(std::chrono::milliseconds(5));
	std::printf("site %d\n", __LINE__ + 2);
	{
		std::lock_guard<std::mutex> g(m);	// waits for the holder
	}
	holder.join();
	return 0;
}
