/* `tilegen tpl`: render a template against a JSON/YAML context (tpl_cmd.c). */
#ifndef TPL_CMD_H
#define TPL_CMD_H

/* argv[0] is "tpl"; returns the process exit code (0 ok, 1 template error,
 * 2 usage or I/O error). */
int tpl_cmd_main(int argc, char **argv);

/* Load a JSON (*.json) or YAML context file into values of arena `a`; NULL
 * with a message on stderr on failure. (Also used by bench/tpl.) */
struct tpl_arena;
struct tpl_value *tpl_cmd_load_context(struct tpl_arena *a, const char *file);

#endif
