/*
 * The pod sandbox's process for the kind node images scripts/kind-node-image.sh
 * builds (no registry here serves registry.k8s.io/pause): it holds the pod's
 * namespaces, reaps the zombies a shared PID namespace hands it, and exits on
 * SIGINT or SIGTERM.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void quit(int sig) { _exit(128 + sig); }

static void reap(int sig)
{
	(void)sig;
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

int main(void)
{
	struct sigaction term = {.sa_handler = quit};
	struct sigaction chld = {.sa_handler = reap, .sa_flags = SA_NOCLDSTOP | SA_RESTART};

	if (getpid() != 1)
		fprintf(stderr, "pause: warning: not PID 1, so no zombies to reap\n");
	if (sigaction(SIGINT, &term, NULL) || sigaction(SIGTERM, &term, NULL) || sigaction(SIGCHLD, &chld, NULL)) {
		perror("pause: sigaction");
		return 1;
	}
	for (;;)
		pause();
}
