// SPDX-License-Identifier: MIT
/*
 * rota top: the command, the terminal and the loop.  One poll(2) waits on
 * the keyboard, the worker's socket (the controller's answers) and a
 * self-pipe that SIGWINCH, SIGINT, SIGTERM and SIGHUP write to, with the
 * next refresh as its timeout.  Each pass handles what is ready and
 * redraws once if anything changed.  The terminal is restored on every
 * way out: quit, Ctrl-C, a signal, an error, exit() (atexit).
 */
#include "config.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <locale.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/msg.h"
#include "ui/cmd.h"
#include "ui/top/top.h"

static volatile sig_atomic_t got_winch;
static volatile sig_atomic_t got_quit;
static int sig_pipe[2] = { -1, -1 };
static bool curses_on;

static void on_signal(int signo)
{
	int saved = errno;

	if (signo == SIGWINCH)
		got_winch = 1;
	else
		got_quit = 1;
	if (write(sig_pipe[1], "", 1) < 0) {
		/* full: a wake-up is already pending */
	}
	errno = saved;
}

static void restore_terminal(void)
{
	if (curses_on && !isendwin())
		endwin();
	curses_on = false;
}

static int setup_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	int sigs[] = { SIGWINCH, SIGINT, SIGTERM, SIGHUP };

	if (pipe(sig_pipe) < 0)
		return -errno;
	for (int i = 0; i < 2; i++)
		fcntl(sig_pipe[i], F_SETFL,
		      fcntl(sig_pipe[i], F_GETFL) | O_NONBLOCK);
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++)
		sigaction(sigs[i], &sa, NULL);
	return 0;
}

static void drain_signals(struct top *t)
{
	char buf[64];
	struct winsize ws;

	while (read(sig_pipe[0], buf, sizeof(buf)) > 0)
		;
	if (got_quit)
		t->quit = true;
	if (got_winch) {
		got_winch = 0;
		if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row &&
		    ws.ws_col)
			resize_term(ws.ws_row, ws.ws_col);
		clearok(curscr, TRUE);
		t->dirty = true;
	}
}

static void read_keys(struct top *t)
{
	int key;

	while ((key = getch()) != ERR) {
		if (key == KEY_RESIZE) {
			t->dirty = true;
			continue;
		}
		top_key(t, key);
	}
}

static int loop(struct top *t, int64_t delay_ms)
{
	int64_t next = 0;

	while (!t->quit) {
		struct pollfd fds[3] = {
			{ .fd = STDIN_FILENO, .events = POLLIN },
			{ .fd = top_worker_fd(t->worker), .events = POLLIN },
			{ .fd = sig_pipe[0], .events = POLLIN },
		};
		int64_t now = rota_clock_mono_ms();
		int rc;

		if (now >= next) {
			top_request_refresh(t);
			next = now + delay_ms;
		}
		if (t->dirty) {
			top_draw(t);
			refresh();
			t->dirty = false;
		}
		rc = poll(fds, 3, (int)(next - now));
		if (rc < 0 && errno != EINTR)
			return -errno;
		if (fds[2].revents || got_quit || got_winch)
			drain_signals(t);
		if (fds[0].revents & POLLIN)
			read_keys(t);
		if (fds[0].revents & (POLLHUP | POLLERR))
			t->quit = true;
		if (fds[1].revents && top_worker_read(t->worker, t) < 0) {
			snprintf(t->status, sizeof(t->status),
				 "the helper process is gone");
			return -EPIPE;
		}
	}
	return 0;
}

static int parse(int argc, char **argv, int64_t *delay_ms, bool *color)
{
	static const struct option opts[] = {
		{ "delay", required_argument, NULL, 'd' },
		{ "no-color", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "d:h", opts, NULL)) != -1) {
		char *end;
		double d;

		switch (c) {
		case 'd':
			d = strtod(optarg, &end);
			if (*end || end == optarg || !(d >= 0.2 && d <= 3600)) {
				cmd_error("top", "-d '%s': expected 0.2 to "
					  "3600 seconds", optarg);
				return 2;
			}
			*delay_ms = (int64_t)(d * 1000);
			break;
		case 'C': *color = false; break;
		case 'h': return 1;
		default: fputs(cmd_top.help, stderr); return 2;
		}
	}
	if (optind < argc) {
		cmd_error("top", "unexpected argument '%s'", argv[optind]);
		return 2;
	}
	return 0;
}

int top_run(int argc, char **argv)
{
	struct top t = { .color = true };
	struct passwd *pw = getpwuid(getuid());
	struct rota_error err;
	int64_t delay_ms = 1000;
	const char *nc = getenv("NO_COLOR");
	int rc = parse(argc, argv, &delay_ms, &t.color);

	if (rc)
		return rc == 1 ? cmd_print_help(&cmd_top) : rc;
	if (nc && *nc)
		t.color = false;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		cmd_error("top", "needs a terminal (try 'rota queue')");
		return 1;
	}
	top_model_init(&t.model, pw ? pw->pw_name : "");
	if (top_worker_start(&t.worker, &err) < 0 || setup_signals() < 0) {
		cmd_error("top", "%s", t.worker ? "signals" : err.text);
		top_worker_stop(t.worker);
		top_model_fini(&t.model);
		return 1;
	}
	setlocale(LC_ALL, "");
	atexit(restore_terminal);
	initscr();
	curses_on = true;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	top_colors_init(&t);
	t.dirty = true;
	rc = loop(&t, delay_ms);
	restore_terminal();
	top_worker_stop(t.worker);
	rota_msg_prio_clear(&t.prio);
	top_model_fini(&t.model);
	if (rc < 0 && t.status[0])
		cmd_error("top", "%s", t.status);
	return rc < 0 ? 1 : 0;
}
