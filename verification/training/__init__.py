"""Training data and the small classifier of the Judge (issue 10): ``corpus`` reads the
corpus, ``legal_set`` builds the hand-written validation set, ``pairs`` generates the
training pairs, ``fit`` trains the logistic regression whose weights ship in
``verification/data/judge_weights.json``."""
