/* Reads one counter out of VTASimStatsJSON()'s text (the C tests have no JSON library). */
#ifndef VTA_SIM_STATS_H_
#define VTA_SIM_STATS_H_

#include <stdlib.h>
#include <string.h>

/* The value of "name" in the statistics JSON, or -1 if absent. */
static inline long long vta_stat(const char* json, const char* name) {
  char key[64];
  size_t length = strlen(name);
  if (length + 3 > sizeof key) return -1;
  key[0] = '"';
  memcpy(key + 1, name, length);
  key[length + 1] = '"';
  key[length + 2] = '\0';
  const char* at = strstr(json, key);
  if (!at) return -1;
  at = strchr(at + length + 2, ':');
  return at ? strtoll(at + 1, NULL, 10) : -1;
}

#endif /* VTA_SIM_STATS_H_ */
