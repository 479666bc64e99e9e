// A client's own module named CSQLite: the store's must not clash with it.
int client_answer(void);
