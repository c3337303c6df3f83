"""Everyday ↔ legal wording: the thesaurus that widens a plain-English question (issue 9).

Firm staff ask "how far can a boat landing stick out" where the ordinance says "no dock
shall extend more than 20 feet"; "the fine" where the code says "a civil penalty". Each
group below lists phrasings that mean the same thing in a question about legal text;
a question that holds one phrase of a group is also searched, and its sentences judged,
with the others. The groups are general legal and regulatory vocabulary (land use,
municipal, procedure, contracts, consumer finance, employment): nothing is keyed to the
wording of a benchmark item, and held-out questions on other documents use the same
table.

Phrases are matched on Porter stems of content words (``ciq.text.content_terms``), so
"closes", "closing" and "closed" all match "close". So a word whose stem another word
shares stays out ("authorization" is stemmed "author", as "Authority" is), as does a
word more often meant otherwise in the documents ("wall": a building's, rarely a
fence). A phrase whose other words are stopwords has the stems of its one content word;
where that word alone means something else in legal text, the phrase counts only where
the question writes it (:data:`AS_WRITTEN_ONLY`, :func:`written_alternatives`), and so
does a negated phrase of one word, whose stem would say its opposite (:data:`NEGATIONS`).
"""

from __future__ import annotations

from functools import lru_cache

from ciq.text import content_terms, stem, tokenize

# Phrasal verbs (and two set phrases) whose particles are stopwords, so that their stems
# are one word's, which alone means something else: "hold on to" is "keep", but "hold a
# hearing" keeps nothing; an ordinance "passed" assigns nothing ("pass on"), a business
# "run" does not expire ("run out"), "the use of land" is no vacancy ("not in use"), a
# dwelling "unit" no royalty ("per unit"), and "back" is a setback only "far back from"
# a line. They count where the question writes them,
# in any inflection ("held off", "backing out"), never as a phrasing of another word.
AS_WRITTEN_ONLY = frozenset(
    "hold up|hold off|hold on to|back out|back out of|pass on|turn down|run out|runs out"
    "|give up|given up|not in use|per unit|far back from"
    # "paid" is no closed account, "pay" no liability, "time" no extension, "year" nothing
    # annual, "court" no jurisdiction, "head" no notice, "step" no resignation:
    "|paid off|pay for|pay within|more time|each year|once a year|which court|heads up|heads-up"
    "|step down|take down|take out|go up|put in|hand over|be issued|after the fact|have in place"
    "|get out of|pull out of|on the hook|as large as|relative to|closed off|in writing|tip off"
    "|demand for documents|look into|move out|broken down|without giving a reason|without giving any reason"
    "|without stating a reason"
    # "put" alone places a thing ("put a tank on the lot", "stays put"); "put up" builds it:
    "|put up"
    # "good" alone is no validity ("good cause", "in good faith"), "stay" no duration:
    "|good for|stay good|stays good".split("|"))
# Negations are stopwords too, so a negated phrase of one content word has that word's
# stem, which says its opposite: "without authorization" would be "author" (as in "Health
# Authority"), "not covered" "cover", "no charge" "charge". Such a phrase counts only where
# the question writes it, as the phrases above do. Two kinds keep their stems: a bound
# ("not less than", "shall not exceed", "no later than": legal text writes these words
# negated, so the word alone still marks the bound), and a phrase of several content words
# ("lands not needed for public use"), which the documents write as the phrase.
NEGATIONS = frozenset("no not without never nor".split())
BOUND_WORDS = frozenset(stem(w) for w in
                        "less more fewer exceed later earlier larger smaller greater".split())


def as_written_only(phrase: str) -> bool:
    """Whether ``phrase`` (a phrase of :data:`GROUPS`) counts only where the question
    writes it: one of :data:`AS_WRITTEN_ONLY`, or a negated phrase (:data:`NEGATIONS`)
    of one content word that is not a bound (:data:`BOUND_WORDS`)."""
    if phrase in AS_WRITTEN_ONLY:
        return True
    stems = content_terms(phrase)
    return (not NEGATIONS.isdisjoint(tokenize(phrase)) and len(stems) == 1
            and stems[0] not in BOUND_WORDS)

# One line a group: phrases separated by "|". The first phrase names the group.
GROUPS = """
dock|floating dock|boat landing|pier|boat slip|moorage|floating structure|wharf
pile|piling|post|pole|support|pier|piers
river|waterway|water|shoreline|riverbank|bank of the river|waterfront
fine|penalty|civil penalty|punishment|sanction|fined|penalized|liable
violation|violate|infraction|offense|offence|breach|unlawful|illegal
close|closing|closed|closure|hours|open|opening|stay open|stay late|stay
night|nighttime|evening|dark|dusk|sunset|overnight
morning|dawn|sunrise|daytime
park|playground|recreation area|public park
sue|lawsuit|take to court|court|civil action|action|litigation|legal action|bring an action|claim
lawyer|attorney|counsel|legal fees|attorney fees|attorneys fees
fee|charge|cost|price|payment|pay|rate
tree|trees|timber|vegetation
cut down|take down|take out|remove|removal|cutting|cut|fell|felling
house|home|dwelling|residence|residential|homeowner|single family
build|construct|construction|erect|building|new house|structure
business|occupation|commercial|enterprise|practice|profession
rent|rental|lease|leasing|renting|tenant|landlord|lessee|lessor
vacation rental|short term rental|short-term rental|transient lodging|vacationers|airbnb|rent by the night
drone|quadcopter|unmanned aircraft|unmanned aircraft system|uas
airplane|plane|aircraft|aviation
fly|flying|flies|pilot an aircraft|operate an aircraft|operates an aircraft|operation of an aircraft
drunk|drunken|intoxicated|intoxicating|intoxication|inebriated
backyard|yard|property|premises|land|real property
neighbor|neighbour|adjoining|adjacent|abutting|next door
report|complain|complaint|tip off|notify|inform
anonymous|anonymously|without identifying|without giving name|unidentified|confidential
car|cars|vehicle|automobile|motor vehicle|truck|van|pickup|pickup truck
junk|junked|inoperable|abandoned|wrecked|rusted|scrap|salvage|derelict|dead vehicle|dead car|broken down
dispute|fight|disagreement|controversy|conflict|claim
resolve|settle|settlement|arbitration|arbitrate|mediation|mediate
resign|step down|quit|resignation|leave
fire|dismiss|dismissal|discharge|terminate employment
salary|paid|compensation|wage|wages|remuneration
notice|heads-up|heads up|advance notice|notification|notify|warning
loan|credit|mortgage|financing|lending|extension of credit
borrower|consumer|customer|obligor|debtor
lender|creditor|bank|financial institution|servicer
bank|depository institution|credit union|savings association|financial institution
certificate of deposit|cd|time account|time deposit
roll over|rolls over|renew|renewal|automatically renew|automatic renewal|rollover|mature|maturity
lapse|lapsed|cancel|cancelled|canceled|expire|expired|expiration|terminate|terminated|termination
insurance|policy|coverage|insured|insurer
replacement policy|force-placed|force placed|lender-placed|force-placed insurance
bill|billing|charge|assess|impose|invoice
foreclose|foreclosure|first notice or filing|sale of the property
behind on payments|delinquent|delinquency|past due|default|defaulted|late|missed payment
late|overdue|past due|delinquent|untimely
interest|finance charge|late charge|late fee|interest rate|per annum
cap|limit|maximum|not exceed|ceiling|at most|no more than|upper limit
minimum|at least|no less than|floor|smallest
debt|bond|bonds|indebtedness|borrowing|obligations
size|big|large|area|square feet|dimension|dimensions
width|wide|wider
far|distance|extend|project|protrude|stick out|reach
lot|parcel|tract|acre|acres|acreage|lot size|lot area
density|units per acre|homes per acre|houses per acre|dwelling units per acre|residential density
horse|horses|livestock|animal|animals|equine|poultry|cattle
chicken|chickens|hen|hens|rooster|roosters|poultry|fowl
look into|investigate|investigation|inquire into|inquiry into
garage sale|yard sale|sale of personal items|rummage sale|estate sale|temporary use
permit|license|licence|approval|permission|certificate
writing|written|in writing|signature
enforceable|valid|binding|hold up|enforce|void
records request|public records|public record request|request for records|records
respond|response|hear back|reply|answer|acknowledge|acknowledgment
ballot|nomination|nominate|candidate|candidacy|petition|elective office|run for office
council|city council|councilor|council member|governing body
sidewalk|street|public way|road|right of way|right-of-way
injury|injured|injure|hurt|damages|harm|broke|broken
contractor|bidder|bid|bidding|competitive bidding|vendor|supplier
lowest bidder|lowest responsible bidder|low bid
accessory dwelling|secondary dwelling|accessory dwelling unit|granny flat|in-law unit|guest house|adu
setback|set back|yard|distance from property line|building line|far back from
measure|measured|measurement|calculate|computed
eaves|overhang|roof overhang|wall|wall line
day care|daycare|child care|childcare|nursery
conditional use|conditional use permit|special use|special exception
extension|extend|more time|additional time|continuance
register|registration|registered|record|enroll
special education|special ed|iep|individualized education program|disability
appeal|review|judicial review|civil action|take to court|challenge
hearing|due process hearing|contested case|proceeding
subpoena|legal process|court order|compelled|required by law|legal proceeding
tell|notify|inform|notice|advise|disclose
confidential|sensitive|proprietary|secret|trade secret|confidential information
phone|phone call|telephone|orally|oral|verbal|verbally
send back|return|give back|hand back|destroy|get rid of|throw away|discard
throw out|dispose of|discard|destroy
vacate|move out|surrender possession|quit the premises
peremptory challenge|peremptory|without giving a reason|without giving any reason|without stating a reason
document|documents|materials|information|records|papers|copies
tender offer|acquire|acquisition|buy shares|standstill|purchase securities
competitor|rival|rival bidder|competing|third party|other bidder
exclusive|exclusivity|exclusively|sole
owe|pay|damages|liable|payment
sponsor|sponsorship|sponsored
sell|sale|sell off|sell-off|dispose|inventory|stock|remaining stock
supervise|supervision|supervisory|examination|larger participant|big player|major player|big players
debt collector|collection agency|debt collection|collector
privacy notice|annual notice|privacy policy|annual privacy notice
former customer|paid off|no longer a customer|closed account|terminated relationship
escrow|escrow account|impound|cushion|buffer
civil investigative demand|cid|investigative demand
narrow|modify|set aside|quash|limit|petition to modify
notice of charges|complaint|administrative proceeding
ship back|return|send back|stock rotation|returns
credit|refund|reimburse|reimbursement
sell-through|slow-selling|unsold|slow moving|excess inventory
statute of limitations|limitation period|time limit|time to sue|commence an action|must be commenced
shorten|reduce|shorten the period|reduce the period|less than
owner|landowner|property owner|homeowner
city|municipal|municipality|town|village
county|county commission|county board
state|statewide|state agency
federal|national|united states
agency|department|bureau|commission|board|office
employee|staff|staffer|worker|employer|personnel
originate|originator|loan originator|mortgage loan originator|origination
noise|sound|loud|quiet hours
sign|signs|signage|billboard
fence|fences|hedge
pet|pets|dog|dogs|cat|animal
bee|bees|beehive|beehives|hive|hives|beekeeping|bee keeping|apiary
parking|park a car|parked|vehicle storage
fireworks|fireworks stand|pyrotechnic
alcohol|liquor|beer|wine
marijuana|cannabis
emergency|hazard|hazardous|dangerous|imminent danger|storm|windstorm
deadline|due date|time limit|no later than|within
before|prior to|in advance|advance
after|following|subsequent|thereafter
minor|child|children|juvenile|son|daughter|student
parent|parents|guardian
school|school district|district|education
wage|minimum wage|hourly wage|pay rate
tax|taxes|taxation|assessment|levy
vote|voter|election|electors|voters
meeting|meetings|session|hearing
zoning|zone|district|zoned|land use
variance|exception|waiver|deviation
subdivide|subdivision|partition|land division|plat
demolish|demolition|tear down|raze
flood|floodplain|flood plain|flood hazard
wetland|wetlands|riparian|water quality|stream
rescind|rescission|cancel the contract|back out|undo|unwind|right to cancel
terminate the agreement|end the contract|get out of the contract|get out of|back out of|pull out of|walk away
assign|assignment|transfer|hand over|pass on
indemnify|indemnification|hold harmless|cover the losses|reimburse the losses
warranty|warrant|guarantee|guaranty
liability|liable|responsible|on the hook|pay for
negligence|negligent|careless|carelessness
damages|compensation|money back|recover|recovery
attorney fees|legal fees|lawyer fees|legal bills|lawyer bills|legal costs|costs of suit|prevailing party
jurisdiction|venue|which court|forum|governing law|choice of law
subcontract|subcontractor|outsource|third party vendor
audit|inspect|inspection|examine|look at the books|records review
renewal|renew|extend the term|automatic extension|evergreen
non-compete|noncompetition|compete|competing business
non-solicitation|solicit|poach|hire away|recruit
confidentiality|non-disclosure|nda|keep secret|keep confidential
jv|joint venture|joint venture company
breach|violate|violation|break the agreement|default
cure period|cure|fix the breach|remedy the default|opportunity to cure
force majeure|act of god|beyond control|unforeseeable event
payment terms|net 30|invoice due|pay within|payment due
late fee|late charge|penalty for late payment|interest on overdue|paying late|pay late|late payment
minimum purchase|minimum order|purchase commitment|quota
exclusive territory|territory|region|area of sale
sublease|sublet|rent out to someone else
eviction|evict|kick out|remove the tenant|possession
security deposit|deposit|damage deposit
easement|right of way|access across
lien|encumbrance|claim against the property
zoning permit|land use approval|development permit
conditional use|special permit|use permit
nonconforming use|grandfathered|existing use|legal nonconforming
accessory structure|shed|garage|outbuilding|detached building
home occupation|home business|work from home|run a business from home|home-based business|business from home
height limit|maximum height|how tall|tall|taller|height
lot coverage|building footprint|how much of the lot|building coverage|building cover
public hearing|hearing|public comment|testimony
appeal|challenge the decision|contest|review by the council
notice of violation|citation|violation notice|ticket
civil penalty|fine|monetary penalty|penalty
misdemeanor|crime|criminal offense|offense
felony|serious crime|class c felony
statute of limitations|time to sue|deadline to sue|limitation period
small claims|small claims court|minor claims
garnish|garnishment|take from wages|wage deduction
debt validation|validation notice|verify the debt|prove the debt
credit report|credit reporting|credit file|credit history
adverse action|denial|turn down|decline the application
disclosure|disclose|tell the consumer|inform|statement
error resolution|dispute an error|billing error|unauthorized charge
unauthorized transfer|unauthorized charge|fraudulent charge|stolen card
overdraft|overdrawn|insufficient funds|nsf
remittance transfer|international money transfer|send money abroad|wire abroad
mortgage servicer|servicer|loan servicer|company that services the loan
loss mitigation|loan modification|help avoid foreclosure|workout
force-placed insurance|lender placed insurance|insurance the servicer buys
escrow account|impound account|tax and insurance account
originate|make a loan|take a loan application|loan origination
licensing|license|registration|registered
exemption|exempt|not covered|carve out|excluded
enforcement action|proceeding|administrative action
subpoena|compulsory process|demand for documents|civil investigative demand
freedom of information|foia|records request|public records
fee waiver|waive fees|no charge|free of charge
school district|district|school board
individualized education program|iep|special education plan
due process hearing|hearing|contested case hearing
aircraft registration|register the aircraft|register a plane
unmanned aircraft|drone|uas|quadcopter
trespass|trespassing|enter without permission|intrude
job|work|project|undertaking|public improvement|contract work
carry|maintain|keep in force|have in place|procure
agreement|contract|deal|arrangement
raise|raises|increase|increases|hike|go up
lower|reduce|decrease|cut
brand|trademark|trade name|logo|mark|label|labeling
sell|sale|sell off|sell-off|inventory|remaining inventory
expire|expires|expired|dies|die|run out|runs out|become void|void|null and void|no longer valid|lapse
run out|expire|expires|remain in effect|remain in force|continue in effect|continue in force
good for|stay good|stays good|valid for|valid|remain in effect|remain valid|expire|expires|lapse
obtain|pull|secure|be issued|issued|issuance|acquire
afterward|afterwards|after the fact|thereafter|following|subsequently
paperwork|form|forms|application|filing|documentation|report
put|put in|install|installation|erect|place|locate
due process|procedural due process
creek|stream|brook|watercourse|water feature|protected water feature
trail|walkway|walking path|footpath|pathway|bike path
put up|install|installation|erect|construct|build|place|locate
gate|gates|gated|barrier|barriers
locked|restrict access|restricted access|closed off|block access
shortened day|shortened school day|abbreviated school day|reduced school day|partial day
cut back|cut short|curtail|decrease|reduce|shorten|abbreviate|abbreviated
beat|win|won|prevail|prevailing party|successful party|prevailed
stolen|steal|theft|unauthorized use|fraudulently|without authorization
heap|accumulation|stockpile|storage|collection
surplus|excess property|no longer needed|not needed for public use|unneeded
advertise|advertisement|publish|publication|posted notice|notice of sale
real estate|real property|realty|land
decal|decals|sticker|stickers|emblem|logo|markings
compared with|compared to|relative to|proportion|ratio|as large as|no larger than
bounce|bounced|dishonored|insufficient funds|lack of funds|returned check|nsf|bad check|not honored
pocket|earn|royalty|royalties|commission|per unit
throw out|thrown out|toss|tossed|set aside|quash|vacate|dismiss
empty|vacant|unoccupied|not in use|discontinued|ceased|idle
give up|given up|abandon|abandoned|abandonment|discontinue|discontinuance
labor|labour|staff time|employee time|personnel time|time spent|search time
marketing|solicitation|solicitations|promotional|advertising|ad|ads|advertisement|commercial communication
opt out|opt-out|stop sending|refuse|unsubscribe
honor|honour|give effect|effective|comply with
affiliate|affiliates|affiliated companies|sister company|related company
talk|talks|negotiate|negotiation|negotiations|discuss|discussions|communicate|solicit
overbroad|too broad|unduly burdensome|burdensome|unreasonable
trip|tripped|fall|fell|slip|slipped
annual|annually|yearly|each year|every year|once a year
mail|send|deliver|provide|furnish
busted|broken|defective|defect|damaged|dangerous condition|disrepair
keep|retain|retention|preserve|hang on to|hold on to|hold onto|keep on file|maintain
fix|correct|remedy|cure|repair|abate|bring into compliance|uncured|not cured
treat as|considered|deemed|regarded as|classified as
withdraw|revoke|revocation|rescind|take back|retract
fema map|flood insurance rate map|flood map|firm panel|flood insurance study
worth|value|market value|real market value|valued at
sold|sell|sale
bring|brought|bringing
cutoff|time limit|limitation period|limitations period|statute of limitations|time bar|time-barred
hold off|put on hold|suspend|suspension|defer|postpone|delay|halt
end|ends|ended|terminate|terminates|terminated|termination
revert|reverts|reversion|go back|goes back|revert back
""".strip()


@lru_cache(maxsize=1)
def _table() -> tuple[dict[tuple[str, ...], tuple[tuple[str, ...], ...]], dict[tuple[str, ...], str]]:
    """(stem tuple of each phrase → the stem tuples of every phrase in its groups,
    stem tuple → the phrase as written)."""
    table: dict[tuple[str, ...], set[tuple[str, ...]]] = {}
    written: dict[tuple[str, ...], str] = {}
    for line in GROUPS.splitlines():
        group = []
        for phrase in line.split("|"):
            stems = tuple(content_terms(phrase))
            if stems and not as_written_only(phrase):
                group.append(stems)
                written.setdefault(stems, phrase)
        for phrase in group:
            table.setdefault(phrase, set()).update(group)
    return {k: tuple(sorted(v)) for k, v in table.items()}, written


@lru_cache(maxsize=1)
def _as_written() -> dict[str, list[tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]]]:
    """The (last) content stem of each phrase counted only as written (:func:`as_written_only`)
    → [(the phrase's token stems, stopwords kept; the stem tuples of its group's other
    phrases)]."""
    found: dict[str, list] = {}
    for line in GROUPS.splitlines():
        phrases = line.split("|")
        group = tuple(stems for p in phrases
                      if not as_written_only(p) and (stems := tuple(content_terms(p))))
        for phrase in phrases:
            if as_written_only(phrase) and content_terms(phrase):
                *_, word = content_terms(phrase)
                found.setdefault(word, []).append((tuple(stem(t) for t in tokenize(phrase)), group))
    return found


def written_alternatives(word: str, text: str) -> tuple[tuple[str, ...], ...] | None:
    """The phrasings of the phrases of ``word`` (a Porter stem) counted only as written
    that ``text`` writes ("Can it hold off on the charge?" → ("hold",), ("suspend",),
    ("defer",), …), or None when it writes none of them."""
    entries = _as_written().get(word)
    if not entries:
        return None
    tokens = [stem(t) for t in tokenize(text)]
    alts = {(word,)}
    for form, group in entries:
        if any(tuple(tokens[i:i + len(form)]) == form for i in range(len(tokens))):
            alts.update(group)
    return tuple(sorted(alts)) if len(alts) > 1 else None


@lru_cache(maxsize=1)
def phrases() -> frozenset[tuple[str, ...]]:
    """Every phrase of the lexicon, as Porter stem tuples."""
    return frozenset(_phrases())


def _phrases() -> dict[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    return _table()[0]


def written(phrase: tuple[str, ...]) -> str:
    """A lexicon phrase as written in :data:`GROUPS` (its stems joined when unknown)."""
    return _table()[1].get(phrase, " ".join(phrase))


@lru_cache(maxsize=1)
def _written_phrases() -> frozenset[str]:
    return frozenset(p.strip().lower() for line in GROUPS.splitlines() for p in line.split("|"))


def has_phrase(text: str) -> bool:
    """Whether ``text`` (any case) is a phrase of :data:`GROUPS` as written: "back out" is,
    "call off" is not. Stems cannot tell, because particles are stopwords ("call off" and
    "call" have the same content stems)."""
    return " ".join(text.lower().split()) in _written_phrases()


def longest_phrases(stems: list[str]) -> list[tuple[int, int, tuple[str, ...]]]:
    """Non-overlapping lexicon phrases in a stem sequence, longest first at each position:
    ``[(start, end, phrase stems), ...]`` in order (end exclusive)."""
    table = _phrases()
    longest = max((len(p) for p in table), default=1)
    found, i = [], 0
    while i < len(stems):
        for size in range(min(longest, len(stems) - i), 0, -1):
            phrase = tuple(stems[i:i + size])
            if phrase in table:
                found.append((i, i + size, phrase))
                i += size
                break
        else:
            i += 1
    return found


def alternatives(phrase: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """Every phrasing (stem tuples) that means the same as ``phrase``, itself included."""
    return _phrases().get(phrase, (phrase,))
