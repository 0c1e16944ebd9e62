// SPDX-License-Identifier: MIT
/*
 * ringtrace-cpp-pool - the API from C++: a thread pool of std::thread
 * workers taking jobs from a queue under a std::mutex and a
 * std::condition_variable, traced with tasks (the main task, a task per
 * worker and per job), a counter (the queue's length) and a typed event per
 * job done, its fields named out of declaration order as C++ allows.
 *
 *   ringtrace record -o DIR -- ringtrace-cpp-pool [--workers N] [--jobs N]
 *
 * The main thread waits until every worker waits for a job, then pushes
 * the jobs.  Job i churns n = 100000 + 3701 * i rounds of a 64-bit mix.  The program
 * prints one line per job ("job I n N result R worker W"), then "done: J
 * jobs", which tests/examples/test_cpp.c checks against the trace.
 */
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>
#include <ringtrace/ringtrace.h>
#include <ringtrace/event.h>

/* [cpp_event] */
RTR_ENUM(pool_parity, "even", "odd");
#define POOL_JOB(F) F(u32, job) F(u32, worker) F(u64, n) F(u64, result)			\
	F(enum, parity, pool_parity) F(string, name)
RTR_EVENT_DECLARE(pool, job, POOL_JOB)
RTR_EVENT_DEFINE(pool, job, POOL_JOB)
/* [/cpp_event] */

namespace {

struct Job {
	uint32_t index;
	uint64_t n;
	uint64_t task;		// the job's task, created by the main task
	std::string name;
};

// A closable queue of jobs; its length is the counter "pool.queue".
class JobQueue {
public:
	explicit JobQueue(uint32_t counter) : counter_(counter) {}

	void push(Job job)
	{
		std::lock_guard<std::mutex> lock(mutex_);

		jobs_.push_back(std::move(job));
		rtr_counter_set(counter_, (int64_t)jobs_.size());
		ready_.notify_one();
	}

	void close()
	{
		std::lock_guard<std::mutex> lock(mutex_);

		closed_ = true;
		ready_.notify_all();
	}

	// Waits until n workers wait for a job: the pool has started.
	void wait_started(uint32_t n)
	{
		std::unique_lock<std::mutex> lock(mutex_);

		started_.wait(lock, [this, n] { return waiting_ == n; });
	}

	// Waits for a job; false once the queue is closed and empty.
	bool pop(Job &job, uint64_t waiter)
	{
		std::unique_lock<std::mutex> lock(mutex_);

		if (jobs_.empty() && !closed_) {
			rtr_switch(0);			// the worker sleeps
			waiting_++;
			started_.notify_one();
			ready_.wait(lock, [this] { return !jobs_.empty() || closed_; });
			waiting_--;
			rtr_switch(waiter);
		}
		if (jobs_.empty())
			return false;
		job = std::move(jobs_.front());
		jobs_.pop_front();
		rtr_counter_set(counter_, (int64_t)jobs_.size());
		return true;
	}

private:
	std::mutex mutex_;
	std::condition_variable ready_;
	std::condition_variable started_;
	std::deque<Job> jobs_;
	uint32_t waiting_ = 0;	// workers waiting for a job
	bool closed_ = false;
	uint32_t counter_;
};

// A job's work: n rounds of a 64-bit mix, each needing the one before.
uint64_t churn(uint64_t n)
{
	uint64_t x = n;

	for (uint64_t k = 0; k < n; k++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		x ^= x >> 29;
	}
	return x;
}

struct Done {
	uint32_t worker;
	uint64_t result;
};

void work(JobQueue &queue, uint32_t worker, uint64_t task, std::vector<Done> &done,
	  std::mutex &done_mutex)
{
	char label[32];
	Job job;

	std::snprintf(label, sizeof(label), "worker %u", worker);
	rtr_label(task, label);
	rtr_switch(task);
	while (queue.pop(job, task)) {
		rtr_read(task, job.task);	// the worker takes the job
		rtr_switch(job.task);
		uint64_t result = churn(job.n);

		/* [cpp_trace] */
		RTR_TRACE(pool, job, .name = job.name.c_str(), .result = result, .n = job.n,
			  .worker = worker, .parity = (uint32_t)(job.n % 2), .job = job.index);
		/* [/cpp_trace] */
		rtr_resolve(job.task, job.task);
		rtr_switch(task);
		std::lock_guard<std::mutex> lock(done_mutex);
		done[job.index] = Done{ worker, result };
	}
	rtr_switch(0);
}

unsigned long option(const char *name, const char *value, unsigned long max)
{
	char *end;
	unsigned long v = value ? std::strtoul(value, &end, 10) : 0;

	if (!value || *end || v < 1 || v > max) {
		std::fprintf(stderr, "ringtrace-cpp-pool: %s takes a number from 1 to %lu\n", name,
			     max);
		std::exit(2);
	}
	return v;
}

} // namespace

int main(int argc, char **argv)
{
	uint32_t nworkers = 4, njobs = 64, counter = 0;

	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : nullptr;

		if (!std::strcmp(argv[i], "--workers")) {
			nworkers = (uint32_t)option(argv[i], v, 256);
			i++;
		} else if (!std::strcmp(argv[i], "--jobs")) {
			njobs = (uint32_t)option(argv[i], v, 1000000);
			i++;
		} else {
			std::fprintf(stderr, "usage: ringtrace-cpp-pool [--workers N] [--jobs N]\n");
			return std::strcmp(argv[i], "-h") && std::strcmp(argv[i], "--help") ? 2 : 0;
		}
	}
	if (!rtr_tracing())
		std::fprintf(stderr, "ringtrace-cpp-pool: not tracing (run under `ringtrace "
			     "record`, or set RINGTRACE=1)\n");
	if (rtr_counter_register("pool.queue", &counter))
		counter = 0;

	uint64_t main_task = rtr_task_id();
	JobQueue queue(counter);
	std::vector<Done> done(njobs);
	std::mutex done_mutex;
	std::vector<std::thread> workers;

	rtr_label(main_task, "main");
	rtr_switch(main_task);
	for (uint32_t w = 0; w < nworkers; w++) {
		uint64_t task = rtr_task_id();

		rtr_create(main_task, task, RTR_KIND_THREAD);
		workers.emplace_back(work, std::ref(queue), w, task, std::ref(done),
				     std::ref(done_mutex));
	}
	queue.wait_started(nworkers);	// every job then wakes a sleeping worker or finds one busy
	for (uint32_t i = 0; i < njobs; i++) {
		Job job{ i, 100000 + 3701 * (uint64_t)i, rtr_task_id(), "job " + std::to_string(i) };

		rtr_create(main_task, job.task, RTR_KIND_TASK);
		rtr_label(job.task, job.name.c_str());
		queue.push(std::move(job));
	}
	queue.close();
	for (std::thread &t : workers)
		t.join();
	rtr_switch(0);
	for (uint32_t i = 0; i < njobs; i++)
		std::printf("job %u n %llu result %llu worker %u\n", i,
			    (unsigned long long)(100000 + 3701 * (uint64_t)i),
			    (unsigned long long)done[i].result, done[i].worker);
	std::printf("done: %u jobs\n", njobs);
	return 0;
}
