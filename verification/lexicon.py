"""Small legal-language lexicon shared by the rule-based Skeptic and Judge.

General legal vocabulary only (modal verbs, negation, exceptions, scope words and a short
thesaurus of verbs and nouns that contracts and regulations use interchangeably); nothing
here is keyed to a benchmark's wording.
"""

from __future__ import annotations

from ciq.text import stem

NUMBER_WORDS: dict[str, int] = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100,
}

# Deontic modality: obligation vs permission (DESIGN.md §1: "modality agreement").
OBLIGATION = frozenset(
    "shall must will required requires require obligated obliged agrees agree undertakes".split()
)
PERMISSION = frozenset("may can permitted allowed entitled authorized authorised free".split())
NEGATION = frozenset("not no never neither nor cannot non without nothing none".split())
PROHIBITION = frozenset(
    "prohibited forbidden barred precluded refrain restricted prohibit prohibits forbid".split()
)
EXCEPTION = ("except", "other than", "unless", "save", "excluding", "excepting", "provided that",
             "provided, however", "notwithstanding", "apart from", "but may")
RESTRICTIVE = frozenset("only solely exclusively".split())
BROADENING = ("including", "include", "includes", "such as", "without limitation", "whether",
              "any and all", "all information", "any information", "limited to")
HEDGES = frozenset("some certain particular specified circumstances".split())
# Vague words that carry little of a claim's meaning; they weigh less when matching.
LIGHT_WORDS = frozenset(
    """even stated state case cases circumstance circumstances expressly conveyed similar
    create certain otherwise respect including include includes included fact matter
    thereof hereof herein hereunder way manner kind type particular specific specified
    relevant applicable appropriate reasonable general generally
    get gets got getting go goes going went gone come comes came coming take takes took
    taking make makes making put puts putting run runs running ran look looks happen
    happens appear appears pick picks count counts counted side chance thing things time
    place else rest say says said want wants back away ahead""".split()
)

# Words contracts and regulations use interchangeably. Each group maps onto its first stem.
_SYNONYM_GROUPS = [
    "disclose share divulge reveal communicate furnish disseminate transmit disclosure",
    "copy copies reproduce reproduction duplicate replicate",
    "destroy destruction erase delete purge shred",
    "retain retention keep maintain preserve archive",
    "employee employees staff personnel",
    "oral orally verbal verbally spoken",
    "notify notice notification inform",
    "terminate termination expiration expire expiry",
    "solicit solicitation recruit hire induce entice",
    "acquire obtain",
    "identify identified mark marked designate designated label labeled labelled",
    "law laws statute statutory legal",
    "judicial court subpoena tribunal",
    "regulation regulatory rule",
    "negotiate negotiation negotiations discussion discussions",
    "agreement contract",
    "information material materials data",
    "technical technological",
    "reverse decompile disassemble",
    "survive survival continue",
    "prohibit forbid",
    "permit license licence",
    # Plain words a rewording uses for legal ones (issue 10: paraphrase recognised).
    "notify tell",
    "terminate end",
    "obtain get receive receipt",
    "request ask",
    "commence begin start initiate",
    "complete finish",
    "injury harm",
    "select choose",
    "vicinity nearby",
    "fine penalty punish",
    # Plain-language equivalents of legal words, after the "Use simple words and phrases"
    # table of the Federal Plain Language Guidelines (plainlanguage.gov, rev. 1, May 2011).
    # A group that starts with a word already listed above joins that word's group.
    "notify advise",
    "attempt try endeavor endeavour",
    "assist help aid facilitate",
    "comply follow obey abide adhere",
    "demonstrate show prove indicate",
    "utilize use utilise",
    "purchase buy procure",
    "reside live dwell",
    "remainder rest",
    "subsequent later following next thereafter",
    "previous prior earlier preceding former",
    "sufficient enough adequate",
    "terminate cease stop discontinue",
    "entire whole full",
    "initial first original",
    "numerous many",
    "modify change alter amend revise",
    "preclude prevent",
    "expend spend",
    "forfeit lose",
    "validate confirm verify",
    "necessary essential",
    "substantial significant considerable",
    "designate appoint nominate",
    "perform carry conduct",
    "execute sign",
    "send forward submit dispatch mail deliver",
    "furnish give supply",
    "remuneration compensation pay payment wage salary",
    "possess hold",
    "equitable fair",
    "expedite speed hasten",
    "exceed surpass",
    "frequently often",
    "locate find",
    "permit let allow authorize authorise",
    "option choice alternative",
    "objective aim goal purpose",
    "portion part",
    "party side",
    "return back",
    # More of the same table (rev. 1, May 2011), as rewordings of contract clauses use them.
    "additional extra added",
    "remain stay",
    "appoint name",
    "furnish provide offer",
    "deem consider regard count",
    "defer deferral delay postpone",
    "generally usually typically ordinarily normally",
    "option chance opportunity",
    "portion fraction",
    "bankruptcy bankrupt insolvency insolvent",
    "monthly month",
    "weekly week",
    "annual annually yearly",
    "freight shipping",
    "select choose pick elect",
    "practicable practical feasible",
    "determine decide",
    # Legal words and their everyday equivalents, after the definitions of Black's Law
    # Dictionary (11th ed.) and B. Garner, A Dictionary of Modern Legal Usage (3rd ed.):
    # an attorney is a lawyer, a rescission a cancellation, a permit lapses when it expires,
    # a person "deemed" to have done a thing is "treated as" having done it, written notice
    # "in advance" is prior notice, consent not "withheld" is not refused.
    "purchaser buyer",
    "revoke revocation rescind rescission cancel cancellation",
    "attorney lawyer",
    "employee worker workers",
    "terminate lapse",
    "deem treat",
    "acknowledge admit",
    "respond response responsive answer reply",
    "withhold refuse decline",
    "dispute disagree contest",
    "previous advance",
    "excavate excavation dig",
    "impose levy charge",
    # Nouns made from verbs that Porter stemming leaves apart from the verb ("extension" /
    # "extend", "submission" / "submit"): a rewording turns one into the other ("an
    # extension may be granted" = "the period may be extended"). After the nominalisations
    # the Federal Plain Language Guidelines ask writers to undo ("Use verbs, not nouns").
    "extend extension",
    "submit submission",
    "decide decision",
    "permit permission",
    "comply compliance",
    "rely reliance",
    "deny denial",
    "fail failure",
    "issue issuance",
    "exclude exclusion",
    "describe description",
    "occupy occupancy occupant",
    "register registration",
    "suspend suspension",
    "deliver delivery",
    "enter entry",
    "sign signature",
    "indemnify indemnification indemnity",
    "certify certification certificate",
    "verify verification",
    # Words of the phrases below, and the everyday words a rewording uses for them.
    "consent approve approval okay assent",
    "refund reimburse reimbursement repay repayment",
    "examine examination inspect inspection review",
    "immediately promptly forthwith",
    "aware discover learn",
    "adjacent abutting adjoining",
    "vicinity near proximity",
    "refuse reject",
    # Everyday words for the ones agreements and rules use (Federal Plain Language
    # Guidelines, "Use simple words and phrases"; Black's Law Dictionary): to update a
    # document is to revise it. Not "check" for "verify": in the regulations a check is
    # also a means of payment.
    "modify update",
    "telephone phone",
    "example instance",
    # Comparatives that pick one of two amounts ("whichever is less" = "whichever is smaller").
    "less smaller lesser lower fewer",
    "greater larger higher bigger",
]

# Irregular verb forms Porter stemming leaves apart ("sold" vs "sell"): each maps onto the
# stem of its base form before the thesaurus applies.
IRREGULAR_FORMS: dict[str, str] = {
    "sold": "sell", "sale": "sell", "sales": "sell", "told": "tell", "paid": "pay",
    "held": "hold", "sent": "send", "kept": "keep", "made": "make", "took": "take",
    "taken": "take", "gave": "give", "given": "give", "wrote": "write", "written": "write",
    "bought": "buy", "brought": "bring", "began": "begin", "begun": "begin", "chose": "choose",
    "chosen": "choose", "found": "find", "met": "meet", "ran": "run", "sought": "seek",
    "spent": "spend", "won": "win", "withdrew": "withdraw", "withdrawn": "withdraw",
    "lost": "lose", "laid": "lay", "left": "leave", "meant": "mean", "built": "build",
    "dealt": "deal", "understood": "understand", "forbade": "forbid", "forbidden": "forbid",
    "dug": "dig", "came": "come",
}

# Words that only carry the modality of a rewording ("is required to" = "shall", "is
# allowed to" = "may", "is prohibited from" = "shall not"): the stance reads them, and they
# are not content words to match (the legal text says "shall", a rewording "is required").
MODAL_PLAIN = frozenset(
    """required require requires obligated obliged allowed permitted entitled prohibited
    forbidden barred able need needs needed can cannot could""".split()
)
# Determiners a rewording uses where legal text says "each", "any" or "all" (stopwords),
# and contractions (their negation is read as such: :mod:`verification.reading`).
QUANTIFIERS = frozenset(
    """every everyone everything whatever whatsoever whichever can't isn't doesn't don't
    won't aren't wasn't weren't hasn't haven't hadn't didn't shouldn't wouldn't couldn't
    mustn't shan't it's they're you're we're there's that's anyone anybody someone somebody
    whoever whenever wherever""".split()
)
# Phrases of modality and negation, longest first, each with the stance words it stands
# for; read on claim and evidence alike (:mod:`verification.features`).
MODAL_PHRASES: tuple[tuple[str, str], ...] = (
    ("is not required to", "need_not"), ("are not required to", "need_not"),
    ("does not have to", "need_not"), ("do not have to", "need_not"),
    ("shall be under no obligation", "need_not"), ("under no obligation", "need_not"),
    ("need not", "need_not"), ("not required", "need_not"), ("no obligation", "need_not"),
    ("is prohibited from", "must_not"), ("are prohibited from", "must_not"),
    ("is not allowed to", "must_not"), ("are not allowed to", "must_not"),
    ("is not permitted to", "must_not"), ("may not", "must_not"), ("shall not", "must_not"),
    ("must not", "must_not"), ("cannot", "must_not"), ("can not", "must_not"),
    ("can't", "must_not"), ("will not", "must_not"), ("won't", "must_not"),
    ("is barred from", "must_not"), ("doesn't have to", "need_not"),
    ("don't have to", "need_not"), ("isn't required to", "need_not"),
    ("is required to", "must"), ("are required to", "must"), ("has to", "must"),
    ("have to", "must"), ("needs to", "must"), ("need to", "must"), ("is obligated to", "must"),
    ("shall", "must"), ("must", "must"), ("will", "must"), ("agrees to", "must"),
    ("is allowed to", "may"), ("are allowed to", "may"), ("is permitted to", "may"),
    ("is entitled to", "may"), ("are entitled to", "may"), ("has the right to", "may"),
    ("shall have the right", "may"), ("can", "may"), ("may", "may"),
)

# Bounds said in other words (issue 10: paraphrase recognised). A deadline or an upper
# bound is "within 30 days" = "no later than 30 days" = "by the 30th day at the latest",
# and "at most 4 feet" = "no more than 4 feet" = "a maximum of 4 feet"; "within", "most"
# and "more" are stopwords, so an upper bound reads as no term ("shall not exceed" stays
# a modal verb and its verb: a claim may say that the area "may exceed" it).
# A lower bound is "at least" = "no less than" = "a minimum of" = "10 or more", read as
# the term of "least". After the Federal Plain Language Guidelines (rev. 1, May 2011),
# "Use simple words and phrases" ("not later than 10 May: by 10 May"; "maximum: most";
# "minimum: least"). Their "no" and "not" negate nothing (:mod:`verification.reading`).
UPPER_BOUNDS = (
    "no later than", "not later than", "never later than", "at the latest", "at the very latest",
    "no greater than", "not greater than", "no larger than", "not larger than",
    "no longer than", "not longer than", "a maximum of", "maximum of", "at a maximum",
    "or less", "or fewer",
)
LOWER_BOUNDS = (
    "at least", "no less than", "not less than", "no fewer than", "not fewer than",
    "no smaller than", "not smaller than", "no shorter than", "not shorter than",
    "no earlier than", "not earlier than", "a minimum of", "minimum of", "at a minimum",
    "or more", "or greater", "or longer",
)

# Phrases a rewording uses for one legal word, each with that word ("" for a phrase that
# says no more than a stopword: "pursuant to" = "under"). Phrasal verbs and idioms of
# everyday English, after the "Use simple words and phrases" table of the Federal Plain
# Language Guidelines (rev. 1, May 2011: "in accordance with: under", "in the event of:
# if", "in lieu of: instead of", "in a timely manner: on time, promptly") read the other
# way round (not "for the purpose of": a non-disclosure agreement's "Purpose" is a defined
# term), and their Latinate equivalents in Black's Law Dictionary (11th ed.): to hold
# on to a thing is to retain it, to find out is to discover, to back out of a contract is
# to cancel it; a use "without authorization" is an "unauthorized" use (its "without"
# negates nothing: :func:`verification.reading.negative`). Matched on stems, so "held on
# to" and "finds out" are read too (:func:`verification.evidence.tokens_terms`).
PHRASES: tuple[tuple[str, str], ...] = (
    ("hold on to", "retain"), ("hang on to", "retain"), ("keep up", "maintain"),
    ("find out", "discover"), ("become aware", "aware"),
    ("get in touch with", "contact"), ("get in touch", "contact"), ("reach out to", "contact"),
    ("right away", "immediately"), ("at once", "immediately"), ("straight away", "immediately"),
    ("as soon as possible", "promptly"), ("in a timely manner", "timely"), ("on time", "timely"),
    ("put off", "defer"), ("put out", "disseminate"), ("hand in", "submit"), ("turn in", "submit"),
    ("hand over", "deliver"), ("turn over", "deliver"),
    ("look at", "examine"), ("look over", "examine"), ("look through", "examine"),
    ("look into", "investigate"),
    ("back out of", "cancel"), ("back out", "cancel"), ("call off", "cancel"),
    ("take effect", "effective"), ("come into effect", "effective"),
    ("go into effect", "effective"), ("come into force", "effective"),
    ("sign off on", "approve"), ("sign off", "approve"), ("go ahead", "approval"),
    ("carry out", "perform"), ("set up", "establish"), ("put in place", "establish"),
    ("pay back", "refund"), ("give back", "return"), ("make sure", "ensure"),
    ("take part in", "participate"), ("take place", "occur"),
    ("set forth", "specify"), ("set out", "specify"), ("spell out", "specify"),
    ("fill out", "complete"), ("fill in", "complete"),
    ("turn down", "refuse"), ("hold back", "withhold"),
    ("in charge of", "responsible"), ("in charge", "responsible"),
    ("next to", "adjacent"), ("close to", "near"), ("in lieu of", "instead"),
    ("without authorization", "unauthorized"), ("without authorisation", "unauthorized"),
    ("without permission", "unauthorized"), ("without authority", "unauthorized"),
    ("pursuant to", ""), ("in accordance with", ""), ("with respect to", ""),
    ("with regard to", ""), ("in regard to", ""), ("in relation to", ""),
    ("in the event that", ""), ("in the event of", ""),
    ("in order to", ""), ("until such time as", ""), ("by means of", ""),
)

SYNONYMS: dict[str, str] = {}
for _group in _SYNONYM_GROUPS:
    _stems = [stem(w) for w in _group.split()]
    # The group's representative is its first word's, so "notify advise" joins "notify".
    _rep = SYNONYMS.get(_stems[0], _stems[0])
    for _s in _stems:
        SYNONYMS.setdefault(_s, _rep)


def canonical(stemmed: str) -> str:
    """The thesaurus representative of a Porter stem (the stem itself when it has none)."""
    return SYNONYMS.get(stemmed, stemmed)
