"""The Judge reading legal language (issue 10), on hand-written claims about real corpus
sentences (none of them from the validation set's documents): plain words for legal ones,
modality, polarity and acting-party clashes on the aligned sentence, and, with MiniLM,
words said in other words."""

import pytest

from tests.conftest import minilm
from verification.claim_info import claim_info, stance_of
from verification.clash import party_clash, sentence_clash
from verification.evidence import quantities, token_term
from verification.judge import EvidenceChunk, RuleJudge
from verification.models import Verdict
from verification.reading import modals, negative, terms
from verification.skeptic import ClaimDraft, claim_type, substantive_words

# 12 CFR 1072.170(j), a CUAD maintenance agreement, and Rivergrove Ord. 54-89C.
APPEAL = ("(j) The Bureau shall notify the complainant of the results of the appeal within 60 "
          "days of the receipt of the timely appeal.")
CHARGES = ("MORPHO shall pay all charges under this Agreement, including the total Annual "
           "Maintenance Charge, within thirty (30) days after receipt of a valid invoice from XIMAGE.")
LAND = ("A land division that is nonconforming because of a public facility deficiency may not "
        "be further altered or extended before the public facility deficiency is cured.")
ORDINANCE_TITLE = ("AN ORDINANCE AMENDING ORDINANCE NO. 16 BY SUBSTITUTING THE NEW PART 2 "
                   "THEREOF: The Park Advisory Council shall consist of five (5) members.")


def _verify(claim: str, evidence: str):
    chunk = EvidenceChunk("c0ffee000001", evidence)
    draft = ClaimDraft(claim, claim_type(claim), (0, len(claim)), (chunk.chunk_id,),
                       substantive_words(claim))
    return RuleJudge().verify(draft, [chunk])


@pytest.mark.parametrize("plain, legal", [
    ("tell", "notify"), ("told", "notify"), ("try", "endeavor"), ("sold", "sale"),
    ("whole", "entire"), ("enough", "sufficient"), ("end", "terminate"), ("sign", "execute"),
])
def test_plain_words_compare_equal_to_the_legal_ones(plain, legal):
    assert token_term(plain) == token_term(legal)


def test_every_is_a_determiner_like_each():
    assert token_term("every") is None and token_term("each") is None


def test_bounds_and_numbers_are_not_negations():
    assert not negative("The charge shall be paid not more than 30 days after receipt.")
    assert not negative("The invoice is due no later than the 15th.")
    assert not negative(ORDINANCE_TITLE)
    assert negative("A land division may not be altered.")
    assert negative("That appraisal does not suffice.")


def test_every_modal_verb_of_a_sentence_is_read():
    assert modals("A home that cannot meet the code has to be removed") == ["must_not", "must"]
    assert modals("the requester shall have the right to appeal") == ["may"]


def test_a_permission_where_the_rule_obliges_is_a_clash():
    claim = "The Bureau may notify the complainant of the results of the appeal within 60 days."
    assert sentence_clash(claim, APPEAL) == "claim: \u201cmay\u201d / evidence: \u201cshall\u201d"
    judgement = _verify(claim, APPEAL)
    assert judgement.verdict == Verdict.CONTRADICTED


def test_a_negated_rule_is_a_clash_and_names_what_differs():
    claim = ("A nonconforming land division may be further altered before the public "
             "facility deficiency is cured.")
    assert "evidence" in sentence_clash(claim, LAND)
    assert _verify(claim, LAND).verdict == Verdict.CONTRADICTED


def test_swapped_parties_are_a_clash():
    claim = ("XIMAGE shall pay all charges under this Agreement within thirty (30) days after "
             "receipt of a valid invoice from MORPHO.")
    assert sentence_clash(claim, CHARGES) == "claim: XIMAGE acts / evidence: MORPHO acts"
    assert _verify(claim, CHARGES).verdict == Verdict.CONTRADICTED


# 12 CFR 1006.5(b), Rivergrove Ord. 16 (Parks), a CUAD sponsorship agreement (GSV Inc.).
EXEMPT_STATE = ("(b) The appropriate official of any state that receives an exemption shall inform "
                "the Bureau in writing within 30 days of any change in the state laws referred to "
                "in § 1006.3(a) and (c) of this part.")
PARK_COUNCIL = ("The Park Advisory Council shall consist of three members to be appointed by the "
                "mayor with the approval of the City Council.")
REVENUE = ("e) Client will pay Excite its variable revenue share payments within thirty (30) days "
           "after the close of each month.")


@pytest.mark.parametrize("claim, evidence, pair", [
    # the actor of the claim is the one the rule acts towards
    ("The Bureau shall inform the appropriate official of any exempted state in writing within "
     "30 days of any change in the state laws.", EXEMPT_STATE,
     "claim: Bureau acts / evidence: official acts"),
    # a passive's "by" agent replaced by the party that only approves
    ("The Park Advisory Council's members are appointed by the City Council with the approval "
     "of the mayor.", PARK_COUNCIL, "claim: City Council acts / evidence: mayor acts"),
    # a contract sentence whose subject is its first word
    ("Excite will pay Client its variable revenue share payments within thirty (30) days after "
     "the close of each month.", REVENUE, "claim: Excite acts / evidence: Client acts"),
])
def test_parties_whose_roles_are_swapped_or_replaced_clash(claim, evidence, pair):
    assert sentence_clash(claim, evidence) == pair
    assert _verify(claim, evidence).verdict == Verdict.CONTRADICTED


@pytest.mark.parametrize("claim, evidence", [
    # a possessive names whose official, not another actor
    ("Within 30 days, an exempt state's appropriate official must inform the Bureau in writing "
     "of any change in the state laws.", EXEMPT_STATE),
    # the same agent, passive and active
    ("The mayor appoints the three members of the Park Advisory Council, with the City "
     "Council's approval.", PARK_COUNCIL),
    ("The Park Advisory Council's members are appointed by the mayor.", PARK_COUNCIL),
    # a subject of its own that names no party: the officer of the condition is not it
    ("When a police officer asks, a pawnbroker must make the register available.",
     "Every pawnbroker shall make the register available to any police officer on demand."),
    # the claim restates the second clause, whose actor is the second party
    ("The Licensor shall provide quarterly reports to the Licensee.",
     "The Licensee shall pay royalties to the Licensor, and the Licensor shall provide quarterly "
     "reports to the Licensee."),
])
def test_the_same_actor_in_other_words_is_no_party_clash(claim, evidence):
    assert party_clash(claim, evidence) == ""


def test_a_faithful_restatement_is_no_clash():
    assert sentence_clash("MORPHO must pay all charges within 30 days after it receives a valid "
                          "invoice from XIMAGE.", CHARGES) == ""
    assert sentence_clash("The Park Advisory Council shall consist of five members.",
                          ORDINANCE_TITLE) == ""
    # "cannot … has to": one of the claim's modalities agrees with the rule's, and "it is
    # not possible" is as negative as "cannot".
    assert sentence_clash(
        "A home that cannot meet this code has to be taken off the site within 15 days.",
        "If it is not possible for the home to meet this code, it shall be removed from the "
        "site within 15 days.") == ""


def test_a_negation_in_another_item_of_a_list_is_not_the_claims():
    # The Vapotherm NDA's return clause (ContractNLI doc 575), and the Writer's claim that
    # joins its lead-in with the first item.
    clause = ("e. To return Confidential Information, including all copies and records "
              "thereof, to Vapotherm, at the Receiving Party’s expense, within five (5) "
              "business days after: (i) receipt of a written request from Vapotherm; (ii) a "
              "decision by Receiving Party not to enter into any consulting relationship with "
              "Vapotherm; or, (iii) within thirty (30) days following the termination of this "
              "Agreement.")
    claim = ("To return Confidential Information, including all copies and records thereof, to "
             "Vapotherm, at the Receiving Party’s expense, within five (5) business days "
             "after: receipt of a written request from Vapotherm.")
    assert sentence_clash(claim, clause) == ""
    assert _verify(claim, clause).verdict == Verdict.SUPPORTED


def test_a_long_sentence_the_claim_does_not_restate_is_not_read_for_clashes():
    contract = ("The Recipient shall not disclose the Confidential Information to any third "
                "party, except to its employees and advisors who need to know it, and shall "
                "not copy, reproduce or reverse engineer any samples or materials furnished "
                "by the Discloser under this Agreement.")
    assert sentence_clash("The Recipient may share information with its employees.", contract) == ""


def test_plain_words_count_as_support_without_minilm(settings, monkeypatch):
    monkeypatch.setenv("CIQ_JUDGE_MINILM", "off")
    judgement = _verify("The Bureau must tell the complainant the results of the appeal "
                        "within 60 days of receiving a timely appeal.", APPEAL)
    assert judgement.verdict == Verdict.SUPPORTED


TERMINATION = ("Either party may terminate this Agreement upon thirty (30) days prior written "
               "notice to the other party if the other party fails to cure a material breach.")


@pytest.mark.parametrize("claim", [
    # Light verbs a rewording adds ("gets", "giving") carry little; a side is a party.
    "Either side can end the Agreement by giving the other side 30 days' written "
    "notice if that side fails to cure a material breach.",
    "Anyone who is a party gets to end the Agreement on 30 days' prior written notice when "
    "the other party fails to cure a material breach.",
])
def test_light_verbs_and_sides_count_as_support_without_minilm(monkeypatch, claim):
    monkeypatch.setenv("CIQ_JUDGE_MINILM", "off")
    assert _verify(claim, TERMINATION).verdict == Verdict.SUPPORTED


def test_a_light_verb_does_not_hide_an_added_detail(monkeypatch):
    monkeypatch.setenv("CIQ_JUDGE_MINILM", "off")
    claim = ("Either side can end the Agreement by giving the other side 30 days' written notice "
             "by certified mail and paying a termination fee if that side fails to cure a "
             "material breach.")
    assert _verify(claim, TERMINATION).verdict != Verdict.SUPPORTED


@minilm
def test_words_said_in_other_words_support_a_paraphrase(monkeypatch):
    from verification.alignment import SOFT_MATCH, similarities

    monkeypatch.setenv("CIQ_JUDGE_MINILM", "on")
    # ("no later than" now reads as "within" by word: "bill" is said in other words.)
    claim = ("MORPHO must pay every charge under this Agreement, the annual upkeep charge "
             "included, within 30 days after it gets a valid bill from XIMAGE.")
    sims = similarities(claim, ["upkeep", "bill"], CHARGES)
    assert min(sims) >= SOFT_MATCH
    judgement = _verify(claim, CHARGES)
    assert judgement.verdict == Verdict.SUPPORTED
    assert "Said in other words:" in judgement.reasoning


@minilm
def test_an_added_detail_is_not_said_in_other_words(monkeypatch):
    from verification.alignment import SOFT_MATCH, similarities

    monkeypatch.setenv("CIQ_JUDGE_MINILM", "on")
    claim = ("MORPHO shall pay all charges under this Agreement by certified check within "
             "thirty (30) days after receipt of a valid invoice from XIMAGE.")
    taken = {token_term(w) for w in ("pay", "charges", "invoice", "receipt", "valid")}
    assert similarities(claim, ["certified"], CHARGES, taken)[0] < SOFT_MATCH
    assert _verify(claim, CHARGES).verdict != Verdict.SUPPORTED


def test_a_possessive_before_a_full_stop_ends_the_sentence():
    """The Logan's Roadhouse sponsorship agreement (CUAD): "… compete with Logan's." is
    a sentence of its own, not an initial, so the next sentence is read with its own
    actor and a verbatim quote of it is supported."""
    evidence = ("SRP may not obtain any associate or secondary sponsors whose products or concepts "
                "compete with Logan's. Any associate and/or secondary sponsor may promote its role as "
                "a sponsor by signage, logos or trademarks on the Race Car.")
    claim = ("Any associate and/or secondary sponsor may promote its role as a sponsor by signage, "
             "logos or trademarks on the Race Car.")
    assert party_clash(claim, evidence) != ""  # read as one unit, SRP would be its actor
    assert _verify(claim, evidence).verdict == Verdict.SUPPORTED


def test_cents_of_zero_state_the_same_amount_but_a_section_number_stays_itself():
    assert token_term("20.00") == token_term("20") == "20"
    assert token_term("1,000.00") == "1000"
    assert token_term("1006.30") != token_term("1006.3")


COD = ("The charges to Shipper for collection and forwarding of Consignee's payment for a C.O.D. "
       "shipment shall be $20.00 per shipment for C.O.D. amounts of $1,000.00 or less.")


def test_an_amount_written_without_its_cents_supports(monkeypatch):
    monkeypatch.setenv("CIQ_JUDGE_MINILM", "off")
    claim = "The Shipper is charged $20 per shipment for collecting a C.O.D. payment of $1,000 or less."
    assert _verify(claim, COD).verdict == Verdict.SUPPORTED
    changed = "The Shipper is charged $25 per shipment for collecting a C.O.D. payment of $1,000 or less."
    assert _verify(changed, COD).verdict != Verdict.SUPPORTED


@pytest.mark.parametrize("plain, legal", [
    ("extra", "additional"), ("delay", "deferral"), ("usually", "generally"),
    ("chance", "opportunity"), ("bankrupt", "insolvency"), ("monthly", "month"), ("name", "appoint"),
])
def test_more_plain_words_compare_equal_to_the_legal_ones(plain, legal):
    assert token_term(plain) == token_term(legal)


def test_barred_is_read_as_a_modal_not_as_a_topic_word(monkeypatch):
    monkeypatch.setenv("CIQ_JUDGE_MINILM", "off")
    evidence = "Distributor shall not export any Products or related information outside of Taiwan."
    assert token_term("barred") is None
    assert _verify("The Distributor is barred from exporting any Products or related information outside "
                   "of Taiwan.", evidence).verdict == Verdict.SUPPORTED


# 12 CFR 1011.4(a), a CUAD sponsorship agreement (GSV Inc.) and Rivergrove Ord. 68-2000.
DISCLAIMER = ("If the material or literature consists of more than one page, it shall appear at "
              "the bottom of the front page. The disclaimer statement shall be set in type of at "
              "least ten point font.")
LOT_SIZE = ("(c)** Nothing herein shall prohibit the partitioning or subdividing of an existing lot "
            "that is two or more times the minimum lot size specified in the development code.")


@pytest.mark.parametrize("one, other", [
    ("no later than 30 days", "within 30 days"), ("at the latest", ""),
    ("no less than 6 inches", "at least 6 inches"), ("a minimum of 6 inches", "6 or more inches"),
    ("a maximum of 10 percent", "at most 10 percent"), ("whichever is smaller", "whichever is less"),
])
def test_a_bound_reads_the_same_whatever_its_words(one, other):
    assert set(terms(one)) == set(terms(other))
    assert not negative(f"The fee is due {one}.")


@pytest.mark.parametrize("claim, evidence", [
    ("The Client has to pay Excite its variable revenue share no later than 30 days after the "
     "close of each month.", REVENUE),
    ("The disclaimer statement must be set in type no smaller than 10 point.", DISCLAIMER),
])
def test_a_bound_in_other_words_supports_without_minilm(monkeypatch, claim, evidence):
    monkeypatch.setenv("CIQ_JUDGE_MINILM", "off")
    assert _verify(claim, evidence).verdict == Verdict.SUPPORTED


def test_a_changed_multiple_is_a_clash(monkeypatch):
    monkeypatch.setenv("CIQ_JUDGE_MINILM", "off")
    tripled = _verify("An existing lot that is at least three times the minimum lot size may be "
                      "partitioned or subdivided.", LOT_SIZE)
    assert tripled.verdict == Verdict.CONTRADICTED
    assert "two or more times" in tripled.clash_pair


# 12 CFR 1011.2, 12 CFR 1090.103(b) and a Rivergrove interpretation of balanced cut and fill.
REVOCATION = ("All purchasers have the option to revoke a contract or lease with regard to a lot not "
              "exempt under §§ 1010.5 through 1010.11 and 1010.14 until midnight of the seventh day "
              "after the day that the purchaser signs a contract or lease.")
NO_RESPONSE = ("A person who fails to respond to the Bureau's written communication within 45 days "
               "will be deemed to have acknowledged that it is a larger participant.")
CUT_AND_FILL = ("3. Any excavation below the 10 year flood elevation for the property shall not "
                "count toward compensating for fill.")


@pytest.mark.parametrize("plain, legal", [
    ("buyer", "purchaser"), ("cancel", "revoke"), ("lawyer", "attorney"), ("worker", "employee"),
    ("lapses", "expires"), ("treated", "deemed"), ("admitted", "acknowledged"),
    ("answer", "respond"), ("disagrees", "disputes"), ("advance", "prior"), ("dug", "excavation"),
    ("charge", "impose"), ("pick", "select"),
])
def test_legal_words_compare_equal_to_their_everyday_equivalents(plain, legal):
    assert token_term(plain) == token_term(legal)


def test_a_buyer_who_may_cancel_is_a_purchaser_who_may_revoke(monkeypatch):
    monkeypatch.setenv("CIQ_JUDGE_MINILM", "off")
    claim = ("Every buyer may cancel a contract or lease for a lot not exempt under §§ 1010.5 "
             "through 1010.11 and 1010.14 until midnight of the seventh day after signing it.")
    assert _verify(claim, REVOCATION).verdict == Verdict.SUPPORTED


def test_failing_to_do_a_thing_is_not_doing_it(monkeypatch):
    monkeypatch.setenv("CIQ_JUDGE_MINILM", "off")
    assert negative(NO_RESPONSE)
    silent = ("A person that doesn't answer the Bureau's written communication within 45 days is "
              "treated as having admitted that it is a larger participant.")
    assert _verify(silent, NO_RESPONSE).verdict == Verdict.SUPPORTED
    answering = ("A person who responds to the Bureau's written communication within 45 days will "
                 "be deemed to have acknowledged that it is a larger participant.")
    assert _verify(answering, NO_RESPONSE).verdict == Verdict.CONTRADICTED


def test_a_negative_claim_is_no_clash_with_a_negative_rule_in_other_words(monkeypatch):
    monkeypatch.setenv("CIQ_JUDGE_MINILM", "off")
    claim = ("Digging below the property's 10-year flood elevation can't be credited as "
             "compensating for fill.")
    assert sentence_clash(claim, CUT_AND_FILL) == ""
    counts = ("Any excavation below the 10 year flood elevation for the property shall count "
              "toward compensating for fill.")
    assert _verify(counts, CUT_AND_FILL).verdict == Verdict.CONTRADICTED


# A CUAD development agreement (Magenta / Bachem), a CUAD maintenance agreement (MORPHO /
# XIMAGE) and a CUAD licence (Licensee / Licensor).
ARCHIVAL_COPY = ("Notwithstanding the foregoing, the Recipient may retain one (1) copy of such "
                 "Confidential Information for legal archival purposes, provided that such copy shall "
                 "be kept confidential after the termination or expiration of this Agreement.")
PERSONAL = ("The interests of MORPHO in this Agreement are personal and shall not be assigned, "
            "transferred, shared or divided in any manner by MORPHO without a prior written consent "
            "of XIMAGE.")
UNAUTHORIZED_USE = ("Should Licensee become aware of Users' unauthorized use or exploitation of the "
                    "Titles, Licensee shall immediately report such use to Licensor.")
DELIVERY = ("Delivery shall occur on the delivery dates set forth in each Project Plan and any "
            "related purchase orders or as otherwise agreed to in writing by the Parties.")


@pytest.mark.parametrize("plain, legal", [
    ("holds on to the copy", "retains the copy"), ("found out about it", "discovered it"),
    ("tell them right away", "notify them immediately"), ("hand in the form", "submit the form"),
    ("backed out of the lease", "cancelled the lease"), ("came into effect", "took effect"),
    ("the City Council signing off", "the City Council approving"),
    ("in accordance with the rules", "under the rules"), ("use without authorization", "unauthorized use"),
])
def test_a_phrase_reads_as_the_legal_word_it_stands_for(plain, legal):
    assert sorted(terms(plain)) == sorted(terms(legal))


def test_a_phrase_is_matched_whole_and_on_its_own_words():
    assert terms("renewed at most one time") != terms("renewed at most on time")
    assert terms("find the records") == [token_term("find"), token_term("records")]


@pytest.mark.parametrize("noun, verb", [
    ("extension", "extend"), ("submission", "submit"), ("compliance", "comply"),
    ("denial", "deny"), ("occupancy", "occupy"), ("delivery", "deliver"),
    ("reimbursement", "refund"), ("inspection", "examine"), ("okay", "consent"),
])
def test_a_noun_compares_equal_to_the_verb_it_is_made_from(noun, verb):
    assert token_term(noun) == token_term(verb)


def test_a_phrasal_verb_supports_without_minilm(monkeypatch):
    monkeypatch.setenv("CIQ_JUDGE_MINILM", "off")
    claim = ("Despite the foregoing, the Recipient is allowed to hold on to one copy of such "
             "Confidential Information for legal archival purposes, provided that the copy is kept "
             "confidential after the termination or expiration of this Agreement.")
    assert _verify(claim, ARCHIVAL_COPY).verdict == Verdict.SUPPORTED
    obliged = ("The Recipient must hold on to one copy of such Confidential Information for legal "
               "archival purposes.")
    assert _verify(obliged, ARCHIVAL_COPY).verdict == Verdict.CONTRADICTED


def test_a_noun_made_from_the_verb_supports_without_minilm(monkeypatch):
    monkeypatch.setenv("CIQ_JUDGE_MINILM", "off")
    claim = ("Products are to be delivered on the dates specified in each Project Plan and any "
             "related purchase orders, or as the Parties otherwise agree in writing.")
    assert _verify(claim, DELIVERY).verdict == Verdict.SUPPORTED


def test_a_use_without_authorization_is_no_negation(monkeypatch):
    monkeypatch.setenv("CIQ_JUDGE_MINILM", "off")
    assert not negative("Users exploit the Titles without authorization.")
    assert negative("Users exploit the Titles without paying.")
    claim = ("If the Licensee finds out about Users' use or exploitation of the Titles without "
             "authorization, the Licensee shall report that use to the Licensor right away.")
    assert _verify(claim, UNAUTHORIZED_USE).verdict == Verdict.SUPPORTED
    silent = ("If the Licensee finds out about Users' use or exploitation of the Titles without "
              "authorization, the Licensee shall not report that use to the Licensor.")
    assert _verify(silent, UNAUTHORIZED_USE).verdict == Verdict.CONTRADICTED


def test_the_by_agent_follows_the_last_of_coordinated_participles(monkeypatch):
    monkeypatch.setenv("CIQ_JUDGE_MINILM", "off")
    active = ("MORPHO may not assign, transfer, share or divide its interests in this Agreement in "
              "any manner without the prior written consent of XIMAGE.")
    assert party_clash(active, PERSONAL) == ""
    assert _verify(active, PERSONAL).verdict == Verdict.SUPPORTED
    swapped = ("XIMAGE may not assign, transfer, share or divide its interests in this Agreement in "
               "any manner without the prior written consent of MORPHO.")
    assert _verify(swapped, PERSONAL).verdict == Verdict.CONTRADICTED


def test_a_verbatim_quote_holding_a_phrase_is_supported_word_for_word(monkeypatch):
    monkeypatch.setenv("CIQ_JUDGE_MINILM", "off")
    rule = ("In order to adequately investigate complaints, Planning and Zoning does not accept "
            "anonymous complaints.")
    judgement = _verify(rule, f"E. Violation. {rule} Completing a Complaint form is required.")
    assert judgement.verdict == Verdict.SUPPORTED
    assert set(judgement.word_scores) == {1.0}  # "order" of "in order to" too


# A CUAD maintenance agreement (TriZetto), § (c): a participle before its noun describes it.
ASSIGNMENT = ("(c) The Customer shall not assign or transfer its rights or obligations under this "
              "Agreement except with MMMW's prior written consent; any prohibited assignment or "
              "transfer shall be void.")


def test_a_participle_before_its_noun_prohibits_nothing(monkeypatch):
    monkeypatch.setenv("CIQ_JUDGE_MINILM", "off")
    assert stance_of("any prohibited assignment or transfer shall be void".split(), False) == "oblige"
    assert stance_of("the receiving party is prohibited from disclosing".split(), False) == "prohibit"
    assert stance_of("such persons are barred from bidding".split(), False) == "prohibit"
    assert _verify("Any such assignment or transfer shall be void.", ASSIGNMENT).verdict == Verdict.SUPPORTED


# A CUAD development agreement (Magenta Therapeutics): the recipient by the contract's name.
RETURN_ON_REQUEST = ("Upon request by the Disclosing Party, Recipient shall promptly return to the "
                     "Disclosing Party the originals and all copies of any Confidential Information "
                     "then in the Recipient's possession or under the Recipient's control.")


def test_the_receiving_party_is_the_contracts_recipient(monkeypatch):
    monkeypatch.setenv("CIQ_JUDGE_MINILM", "off")
    claim = ("When the Disclosing Party asks, the Receiving Party must promptly give back all "
             "copies of the Confidential Information it holds.")
    assert party_clash(claim, RETURN_ON_REQUEST) == ""
    assert _verify(claim, RETURN_ON_REQUEST).verdict == Verdict.SUPPORTED
    # After the verb too, the role's name weighs like a subject's: the contract may not use it.
    passive = ("Upon request, all copies of Confidential Information shall be returned promptly "
               "by the Receiving Party to the Disclosing Party.")
    assert _verify(passive, RETURN_ON_REQUEST).verdict == Verdict.SUPPORTED
    swapped = ("The Disclosing Party shall promptly return to the Receiving Party all copies of "
               "Confidential Information upon request.")
    assert _verify(swapped, RETURN_ON_REQUEST).verdict == Verdict.CONTRADICTED


# 12 CFR 1014.5(a) (mortgage acts and practices): a period in another unit.
RECORDKEEPING = ("(a) Any person subject to this part shall keep, for a period of twenty-four "
                 "months from the last date the person made or disseminated the applicable "
                 "commercial communication regarding any term of any mortgage credit product, the "
                 "following evidence of compliance with this part.")


def test_a_period_in_another_unit_states_the_same_period(monkeypatch):
    monkeypatch.setenv("CIQ_JUDGE_MINILM", "off")
    (years,), (months,) = quantities("two years"), quantities("twenty-four months")
    assert (years.value, years.unit) == (months.value, months.unit) == (24.0, "month")
    same = ("Any person subject to this part must keep evidence of compliance for two years from "
            "the last date it made or disseminated the commercial communication.")
    assert _verify(same, RECORDKEEPING).verdict == Verdict.SUPPORTED
    longer = same.replace("two years", "three years")
    judgement = _verify(longer, RECORDKEEPING)
    assert judgement.verdict == Verdict.CONTRADICTED
    assert "twenty-four months" in judgement.clash_pair


def test_a_comma_before_a_clause_is_no_list_of_alternatives():
    claim = ("Anyone covered by this part has to keep evidence of compliance for two years, "
             "counted from the last time they made or put out the commercial communication.")
    info = claim_info(claim, tuple((str(w), float(i)) for w, i in substantive_words(claim)))
    assert ("year",) in info.groups  # not ("year", "deem"): "counted" is no alternative
    assert token_term("disseminate") in info.groups[-2]  # "made or put out"


# Ray County Zoning Regulations, fences (the layout of the county's text, wide spacing kept).
FENCE_LIST = ("7.        No fence shall be constructed of a height greater than 8 feet, except:\n\n\n"
              "                a.        fences erected upon public or parochial school grounds or in "
              "public parks, in public playgrounds or on other public lands; and\n\n\n"
              "                b.        fence heights of greater than 8 feet  authorized by Conditional "
              "Use Permit (See Article 30.9).")


@pytest.mark.parametrize("item", [
    "fence heights of greater than 8 feet authorized by Conditional Use Permit (See Article 30.9)",
    "fences erected upon public or parochial school grounds or in public parks",
])
def test_a_list_item_is_read_with_the_negated_lead_in_it_completes(item):
    # The Writer quotes a list's lead-in with one item; the item alone states no negation,
    # so read alone it "clashed" with the claim's "No fence shall".
    found = _verify(f"No fence shall be constructed of a height greater than 8 feet, except: {item}.",
                    FENCE_LIST)
    assert found.verdict == Verdict.SUPPORTED, found.reasoning


def test_a_claim_that_negates_a_list_item_still_clashes():
    found = _verify("Fence heights of greater than 8 feet are not authorized by Conditional Use Permit.",
                    FENCE_LIST)
    assert found.verdict != Verdict.SUPPORTED


# 12 CFR 1003.5 (HMDA), Rivergrove's WQRA ordinance (Ord. 70-2001), a CUAD co-branding
# agreement (RSL COM PrimeCall / deltathree) and 12 CFR 1006 (debt collection).
RECORDS_FORMAT = ("A financial institution may maintain the records required by § 1003.4(f) in electronic "
                  "or any other format, provided the institution can make the information available to its "
                  "regulatory agency in a timely manner upon request.")
ENHANCEMENT = ("Enhancement activities may or may not return the site to a pre-disturbance condition, but "
               "create/recreate processes and features that occur naturally.")
PROMOTION = "The services described in Section 5.03 shall be provided at no additional cost to PrimeCall."


def test_a_participle_of_obligation_after_its_noun_obliges_nothing(monkeypatch):
    monkeypatch.setenv("CIQ_JUDGE_MINILM", "off")
    permits = "a financial institution may maintain the records required by".split()
    assert stance_of(permits, False) == "permit"
    assert stance_of("the institution is required to maintain the records".split(), False) == "oblige"
    claim = ("A financial institution is allowed to keep the records required by § 1003.4(f) in electronic "
             "or any other format.")
    assert _verify(claim, RECORDS_FORMAT).verdict != Verdict.CONTRADICTED


def test_may_or_may_not_permits_and_prohibits_nothing(monkeypatch):
    monkeypatch.setenv("CIQ_JUDGE_MINILM", "off")
    assert stance_of("enhancement activities may or may not return the site".split(), False) == "permit"
    assert stance_of("enhancement activities may not return the site".split(), False) == "prohibit"
    claim = "Enhancement activities can return the site to a pre-disturbance condition, or not."
    assert _verify(claim, ENHANCEMENT).verdict != Verdict.CONTRADICTED


def test_at_no_cost_is_a_price_not_a_negation(monkeypatch):
    monkeypatch.setenv("CIQ_JUDGE_MINILM", "off")
    assert not negative("PrimeCall gets the Section 5.03 services at no charge.")
    assert negative("PrimeCall does not get the Section 5.03 services.")
    claim = "PrimeCall receives the services described in Section 5.03 at no charge."
    assert sentence_clash(claim, PROMOTION) == ""
