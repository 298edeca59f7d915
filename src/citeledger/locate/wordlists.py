"""The word lists the locator's editorial-mark rules rest on (docs/editorial-marks.md).

Each list names a class of words whose presence or absence changes what a sentence claims: they
may never come from a bracket, never be left out at an ellipsis, and never be made or unmade by
splitting or joining a word. The lists are deliberately broad: a wrongly refused quote costs the
writer a longer quotation; a wrongly accepted one is a false "checked".

Must never: be copied elsewhere (import them); hold a word that does not carry meaning of its
class (each entry is tested in tests/test_wordlists.py).
"""

from __future__ import annotations

import re


def _wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


NEGATIONS = _wordset(
    """
    not no never without none nor cannot neither nobody nothing nowhere noone non hardly
    scarcely barely rarely seldom
    """
    # ... and of every language FUNCTION_WORDS covers: French, Spanish, Portuguese, German,
    # Italian ("ne … pas", "não", "kein", "senza"; French "n'" is word_class's). Not Italian
    # "mai": French for May ("le 4 mai"), and "non" carries the negation it goes with.
    """
    ne pas jamais rien personne aucun aucune aucuns aucunes nul nulle nullement guère sans ni
    nunca jamás nada nadie ningún ninguno ninguna ningunos ningunas tampoco sin apenas
    não nem sem nenhum nenhuma nenhuns nenhumas ninguém tampouco jamais
    nicht nie niemals kein keine keinen keinem keiner keines nichts niemand niemanden
    niemandem nirgends nirgendwo ohne weder kaum
    niente nulla nessuno nessuna nessun senza né neanche nemmeno neppure
    """
)
MODALS = _wordset("may might must can could should would shall will ought need needs")
HEDGES = _wordset(
    """
    perhaps possibly probably likely unlikely apparently arguably presumably seemingly
    allegedly reportedly supposedly potentially suggest suggests suggested seem seems seemed
    appear appears appeared roughly approximately almost nearly somewhat partly partially
    largely mostly generally usually often sometimes occasionally tend tends possible
    potential hypothetical hypothetically approximate estimated estimate alleged apparent
    probable presumed putative purported suspected tentative tentatively conceivably maybe
    assumed expected predicted projected typically normally commonly frequently regularly
    necessarily inevitably certainly definitely clearly obviously surely undoubtedly
    """
    # an attempt is not an achievement: "systems that try to learn thresholds" are not
    # "systems that … learn thresholds"
    """
    try tries tried trying attempt attempts attempted attempting
    tente tentent tenté tenter essaie essaient essayé essayer versucht versuchen versuchte
    intenta intentan intentó intentar tenta tentam tentou tentar cerca cercano tentato
    """
)
QUANTIFIERS = _wordset(
    """
    all every each any some most many much few several both either only always entirely
    wholly fully completely totally none half majority minority just merely simply solely
    purely exclusively mere sole little enough numerous plenty per maximum minimum average
    median total everything anything something everyone anyone someone everybody anybody
    somebody everywhere anywhere somewhere remaining others
    """
)
# Comparatives, the other side of a comparison ("versus", "compared"), and the verbs of a
# quantity's direction of change: "shares fell sharply in early trading" may not become
# "shares … in early trading", nor a rise a fall (a change is a comparison with before).
COMPARATIVES = _wordset(
    """
    more less most least fewer fewest greater greatest lesser larger largest smaller smallest
    higher highest lower lowest better best worse worst than rather exceed exceeds exceeded
    faster fastest slower slowest longer longest shorter shortest earlier earliest later latest
    stronger strongest weaker weakest wider widest narrower deeper deepest older oldest younger
    youngest newer newest easier easiest harder hardest cheaper cheapest bigger biggest
    heavier lighter closer closest farther further furthest increasingly versus vs compared
    rise rises rose risen rising fall falls fell fallen falling grow grows grew grown growing
    increase increases increased increasing decrease decreases decreased decreasing decline
    declines declined declining drop drops dropped dropping gain gains gained gaining climb
    climbs climbed surge surged plunge plunged jump jumped soar soared slump slumped
    """
)
# Words that negate without a "not": a meaning-carrying negative an omission may not hide;
# the words of an exception too ("prices excluding taxes", "minus the subsidies").
NEGATIVE_WORDS = _wordset(
    """
    insufficient inadequate incorrect incomplete inconsistent invalid inaccurate impossible
    improper impractical irrelevant irregular illegal illegitimate unable unlikely unknown
    unclear unsafe unfair unjust disagree disagrees disapprove disapproved dishonest
    disadvantage misleading fail fails failed failure lack lacks lacked lacking absent absence
    instead except excepting unless only neglect neglected refuse refused reject rejected deny
    denied prevent prevents prevented against excluding exclude excludes excluded besides
    barring minus contrary exempt exempts exempted exempting exemption exemptions failing
    """
    # ... and the exceptions of the corpus's other languages ("sauf cas d'urgence")
    """
    sauf excepté hormis salvo excepto exceto außer ausgenommen tranne eccetto
    """
)
# Words that open a qualification or a contrast: "effective in most patients but caused
# nausea in some" → "effective in most patients … in some" hides the caveat the source put
# there. Leaving out the clause such a word opens is cherry-picking, not an omission.
CONTRASTS = _wordset(
    """
    but however although though despite yet whereas nevertheless nonetheless notwithstanding
    """
)
# Words that open a condition: leaving out "if p is bad" makes a conditional claim absolute.
# "until", "since", "pending", "lest" bound a claim in time as "if" bounds it by a case:
# "to be demolished until the council reversed its decision" is not "to be demolished".
# ("till" is not listed: as often a noun or a verb, "the till", "till the soil".)
CONDITIONS = _wordset("if whether provided assuming whenever until since pending lest")
# Who says so: "Mozilla reported that …" is Mozilla's claim, not the source's.
ATTRIBUTIONS = _wordset(
    """
    said says say reported reports claimed claims argued argues believed believes thought
    thinks noted stated wrote writes according told feared fears hoped insisted insists
    """
    # ... and in every language FUNCTION_WORDS covers: "arguant que", "selon", "affirme que",
    # "behauptet, dass", "laut", "afirma que", "según", "segundo", "secondo", "sostiene che"
    """
    dit disent affirme affirment affirmé déclare déclarent déclaré estime estiment estimé
    assure assurent assuré explique expliqué indique indiqué souligne souligné précise précisé
    arguant arguent soutient soutiennent prétend prétendent pense pensent croit croient craint
    craignent ajoute ajouté annonce annoncé rapporte rapporté selon
    sagt sagte sagten behauptet behauptete behaupten erklärt erklärte erklärten meint meinte
    glaubt glaubte betont betonte berichtet berichtete schreibt schrieb warnt warnte
    argumentiert vermutet fürchtet laut zufolge
    dijo dice dicen afirma afirmó afirman asegura aseguró aseguran declaró explicó señaló
    indicó sostiene sostuvo cree creen advirtió añadió argumenta argumentó según
    disse diz dizem afirmou afirmam declarou explicou acredita acreditam argumentou alega
    alegou garante garantiu segundo
    detto afferma affermato dichiarato ritiene spiega spiegato sottolinea crede secondo
    """
)
# The nouns of a stance, a frame that makes what follows someone's view rather than the
# source's claim ("Another theory is that …", "There is worry …", "To the best of our
# knowledge, …"): read only at a quote's edges, never refused in an omission.
STANCES = _wordset(
    """
    theory theories hypothesis view views opinion belief beliefs worry worries fear concern
    concerns hope hopes claim claims allegation allegations speculation suspicion rumor rumour
    rumors rumours assumption impression knowledge guess argument suggestion possibility
    misunderstanding misconception myth perception expectation prediction estimate estimates
    thinking idea notion premise consensus intuition hunch
    """
)
# Words that, right after a quote (no punctuation between), open what limits it: its
# condition, its exception, its bound ("takes 44% longer … when the backup task mechanism is
# disabled", "minimax-optimal up to constant factors", "shown in real time except for …").
TAIL_QUALIFIERS = (
    *sorted(CONDITIONS),
    "when",
    "once",
    "than",
    "albeit",
    "unless",
    "except",
    "excluding",
    "although",
    "though",
    "even though",
    "only",
    "as long as",
    "so long as",
    "up to",
    "at first",
    "at least",
    "at most",
    "in part",
    "to some extent",
    "in some cases",
    "in most cases",
    "in theory",
    "in principle",
    "aside from",
    "apart from",
    "other than",
    "rather than",
    "instead of",
    "compared to",
    "compared with",
    "relative to",
)
# ... and after the source's comma or dash: an exception or a condition still limits what
# came before ("…, except that there is a very long tail"); a temporal "when" need not.
TAIL_QUALIFIERS_AFTER_COMMA = (
    "if",
    "albeit",
    "unless",
    "except",
    "excluding",
    "provided",
    "only if",
    "only when",
    "at least",
    "at first",
    "aside from",
    "apart from",
    "other than",
    "rather than",
    "instead of",
)
# Verbs of saying a sentence may end with after the quote ("…, officials said.", "…, say the
# authors.", "…, critics claim."): the quote is then someone's report, not the source's claim.
SAYING_AFTER = ATTRIBUTIONS | _wordset(
    """
    claim argue argued believe think note state write tell told insist add added adds explain
    explains explained warn warns warned suggest suggests suggested estimate estimates
    estimated contend contends contended maintain maintains maintained allege alleges alleged
    report announced declared conclude concludes concluded acknowledged admitted assert
    asserts asserted predicted predict predicts speculated promised promises pledged vowed
    """
)
# Prepositions that open a fronted scope or time the main clause holds in ("In the extreme
# cold, city officials will not …", "Within months of the deal, Whole Foods was …").
SCOPE_OPENERS = _wordset("in within during under across throughout outside beyond")
# ... unless what follows "In" is a turn of discourse, not a scope ("In addition,", "In this
# paper,"): its first word is one of these
DISCOURSE_AFTER_IN = _wordset(
    """
    addition fact particular contrast short general turn sum summary conclusion brief other
    this these our my practice principle theory total effect essence response return
    comparison reality truth retrospect hindsight order part any a an
    """
)
DISCOURSE_AFTER_THE = _wordset("end meantime meanwhile same first second last following")
# ... nor a date: an event's time does not limit it ("In May, the plant closed").
DATE_WORDS = _wordset(
    """
    january february march april may june july august september october november december
    spring summer autumn fall winter early late mid the of year years
    """
)
# Words that open a sentence without opening its frame: "But if …", "Indeed, when …".
CONNECTIVES = _wordset("and but so yet indeed however also then now still thus hence")
# (The abbreviations whose full stop ends no sentence live with the rule that reads them, in
# ``citeledger.sentence_end``: the build and the locator share one list.)
# A source line that ends with one of these goes on at the next, whatever its first letter
# (a line that ends without them before a capital is a heading, a caption, a block's end).
LINE_GOES_ON = _wordset(
    """
    the a an of to in on at by for with from and or nor but as that this these its their his
    her our your than into onto via per is are was were be
    """
)
# ... of them, the verbs only (not "claims", "reports", "fears", "hopes", "thought", also
# nouns): "Smith said ⟦the plan …⟧" reports what Smith said, "an insurance claim ⟦must …⟧" not.
SAYING = ATTRIBUTIONS - _wordset("claims reports fears hopes thought according") | _wordset(
    "believe argue think contend contends contended insist suspect suspects suspected"
    # a fear, a hope, a promise, a warning, a suggestion with no "that" ("Critics fear the
    # data will be kept", "Officials suggested the plant would close")
    " fear feared worry worried warned warns promised promises pledged vowed suggested"
    " predicted expects expected"
)
# How much, how far, how often, since when: "especially efficient", "slightly more", "the
# former PM", "temporarily dialed back" — left out, the claim says more than the source.
DEGREES = _wordset(
    """
    especially particularly notably chiefly mainly primarily alone slightly relatively fairly
    quite very extremely highly significantly considerably substantially marginally former
    formerly originally initially temporarily currently previously recently eventually
    ultimately finally socalled specifically explicitly officially formally legally publicly
    technically nominally theoretically effectively virtually practically essentially strictly
    directly indirectly permanently briefly historically traditionally
    """
)
# Two-word negatives: "instead of", "rather than" (matched as a phrase).
NEGATIVE_PHRASES = ("instead of", "rather than", "other than", "apart from", "far from")
# Phrases of degree and of a population at risk: "thanks in part to plastic" is not "thanks …
# to plastic" (a partial cause made the whole), nor "children at high risk for getting
# allergies" "children … getting allergies" (a risk group made the sick).
DEGREE_PHRASES = (
    "in part",
    "in large part",
    "for the most part",
    "to some extent",
    "to a degree",
    "in some cases",
    "at risk",
    "at high risk",
    "at low risk",
    # a limit to some cases, in each language ("unter bestimmten Umständen erlauben")
    "under certain circumstances",
    "under certain conditions",
    "in certain cases",
    "unter bestimmten umständen",
    "unter umständen",
    "in bestimmten fällen",
    "dans certains cas",
    "sous certaines conditions",
    "en certains cas",
    "en algunos casos",
    "en ciertos casos",
    "bajo ciertas condiciones",
    "em alguns casos",
    "em certos casos",
    "in alcuni casi",
)
# A prefix that negates the rest of the word ("unable", "nonlinear"). "in-", "im-", "dis-"
# are too common as plain syllables: their negative words are listed one by one above.
NEGATIVE_PREFIXES = ("un", "non")
# ... except in words that start with these, where "un" is not a prefix (their inflections
# too: "uniforms", "unions", "uniquely", "universities", "University's").
NOT_PREFIXED = _wordset(
    """
    under understand understood undergo undertake uniform union unique unit unity univers
    unison until unto uncle
    """
)
_NOT_PREFIXED = tuple(sorted(NOT_PREFIXED))
# Numbers spelled out: a number all the same ("one" is left out: far more often a pronoun,
# "this one", than a count).
NUMBER_WORDS = _wordset(
    """
    zero two three four five six seven eight nine ten eleven twelve thirteen fourteen
    fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty
    ninety hundred hundreds thousand thousands million millions billion billions trillion dozen
    dozens twice thrice double triple quadruple once single first second third fourth fifth
    sixth seventh eighth ninth tenth last next previous prior percent
    """
)
# Words that make the number after them approximate or a bound ("about 50", "over 30"): plain
# prepositions elsewhere, so an omission is refused for one only right before a number.
APPROXIMATORS = _wordset("about around over under some circa ca within below above beyond upto")
# ... and the two-word ones ("up to 60FPS"; "as many as", "at least" hold listed words).
APPROXIMATOR_PHRASES = frozenset({"up to", "close to", "upwards of", "excess of"})
# Units and scales a number goes on with: a quote that stops before one ("a period of 12" of
# "12 hours", "scored 82.2" of "82.2%") cuts the number from what it counts.
UNITS = _wordset(
    """
    percent per cent times fold hours hour hrs h days day minutes minute min mins seconds
    second sec secs s ms µs us ns years year yrs months month weeks week km m cm mm µm nm mi
    ft kg g mg µg lb lbs t l ml gb mb kb tb gib mib bytes bits hz khz mhz ghz kw mw w kwh v mv
    ma a mph kph degrees points pts pp bps x
    """
)
# Quantifiers that describe inside a closed aside ("— which were made of either cast iron or
# steel —"), as against those that limit ("only", "just", "solely", "entirely", "half"): an
# ellipsis may leave out an aside holding one of these, never one holding a limit.
ASIDE_QUANTIFIERS = _wordset(
    "all every each any some most many much few several both either numerous"
)
# Quantifiers that make a claim of a part ("Some pipes", "most of the work", "only the
# rich"): a quote that starts right after one makes the claim of the whole.
PART_QUANTIFIERS = _wordset(
    """
    some most many much few several only just merely solely purely exclusively half
    majority minority none little numerous
    """
)
# Words a number's phrase may end before ("In 2019 the firm", "le 4 mai"): a
# quote that stops on a count before any other lower-case word cuts the count from its noun
# ("between 400 and 600" of "between 400 and 600 water main breaks").
NUMBER_PHRASE_ENDS = _wordset(
    """
    a an the and or but nor so yet as at by for from in into of off on onto out over per since
    than that then through till to toward towards under until up upon via when where whereas
    which while who whom whose with within without is are was were be been being am has have
    had do does did will would shall should can could may might must also alone each apiece
    altogether respectively ago later earlier before after afterwards again
    january february march april june july august september october november december
    janvier février mars avril mai juin juillet août septembre octobre novembre décembre
    enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre
    januar februar märz juni juli oktober dezember
    """
)
# Words a number after them names, not counts ("page 12 shows", "Section 3 describes").
NUMBER_LABELS = _wordset(
    """
    page pages p pp section sections chapter chapters figure fig figures table tables part
    article articles step steps level levels phase version no number item items rule rules
    line lines appendix volume vol issue model type class grade room route paragraph verse
    """
)
# Function words of the corpus's other languages (French, Spanish, Portuguese, German, Italian),
# never a negation: an ellipsis may leave one out alone, as it may "the" or "that".
FUNCTION_WORDS = _wordset(
    """
    de la le les des du un une et ou en au aux dans par pour sur que qui se ce il elle
    el los las del y o al con por para su es lo
    os as do da dos das e em na nos nas com um uma
    der die das den dem des und oder zu im mit von für auf ist ein eine einen auch
    il lo gli di del della e o con per che un una
    """
)
# Words that open a clause whose subject follows them ("that the web", "who", "which"): an
# omission starting with one, where the quote goes on with AUXILIARIES ("argument … is a
# starting point" of "argument that the web is a starting point"), takes away the subject of
# the verb the quote goes on with, and the claim is made of another thing.
CLAUSE_OPENERS = _wordset("that which who whom whose")
AUXILIARIES = MODALS | _wordset("is are was were am has have had do does did")
# What a bracket may stand for: a reference the quoter spells out ("[the committee]" for "it").
REFERENCES = _wordset(
    """
    it its they them their theirs he him his she her hers we us our you your i me my this that
    these those which who whom whose such there here the
    """
)
# ... and the personal pronouns of the corpus's other languages ("[La CNCTR]" for "Elle",
# "[Das Skript]" for "Es"), with the articles a bracket's name may carry ("La", "Das"),
# dropped when the name is looked for in the source.
REFERENCES_OTHER = _wordset(
    """
    il elle ils elles lui eux er es sie ihn ihm ihr ihnen él ella ellos ellas ele ela eles elas
    lei loro esso essa essi esse
    """
)
ARTICLES_OTHER = _wordset("le la les der die das den dem des el los las lo os il gli")
# Words by which a sentence points back at the one before it (a pronoun, a demonstrative, a
# connective), in the corpus's languages: after sentences left out whole, such a sentence would
# point at another one than the source's ("… positive (curve 5a). … This was obtained by", where
# "This" is curve 5b; "… Dans ces cas, la procédure …").
BACK_REFERENCES = _wordset(
    """
    it its they them their theirs he him his she her hers this that these those such there
    here so thus hence therefore however moreover furthermore also then yet still but and or
    nor instead otherwise consequently accordingly nevertheless nonetheless besides likewise
    similarly conversely meanwhile additionally none neither both former latter other though
    again too
    il elle ils elles lui eux ce cela ceci ces cette cet ceux celle celui celles ainsi donc
    cependant pourtant toutefois mais alors aussi
    er sie es ihn ihm ihr ihnen dies diese dieser dieses diesen diesem dadurch daher deshalb
    deswegen jedoch aber außerdem damit dabei somit dort
    él ella ellos ellas ello eso esto esta este estos estas ese esa esos esas así pero además
    embargo
    ele ela eles elas isso isto esse essa esses essas assim portanto porém contudo mas
    lei loro esso essa questo questa questi ciò quindi tuttavia però
    """
)
# ... and these, only after a determiner ("the former", "this same"): alone, "former" is an
# adjective ("former security chief"), and after a pronoun "said" is a verb ("he said").
REFERENCE_TAILS = _wordset("former latter said above same")
DETERMINERS = _wordset("the this that these those")
# What a bracket of determiners alone ("[the]") may stand for: one such word, never a span
# ("[the]" for "the fake" leaves a word out; for "a" it is one article for another).
_ONE_DETERMINER = REFERENCES | _wordset("a an")
# Brackets that insert nothing of the source and change no word of it.
INSERTIONS = frozenset({"sic", "sic!", "emphasis added", "emphasis mine", "italics added"})
# Symbols are tokens: any of these added, dropped or changed is a difference.
SYMBOLS = "<>≤≥=≠±∈∉⊂⊆⊃⊇∩∪∀∃¬√→↔∞×÷°%‰∓≈≡∝∑∏∫∂∇⇒⇔←⇐$€£¥§#&@+~^"

MEANINGFUL_CLASSES: dict[str, frozenset[str]] = {
    "negation": NEGATIONS,
    "number": NUMBER_WORDS,
    "modal": MODALS,
    "hedge": HEDGES,
    "quantifier": QUANTIFIERS,
    "comparative": COMPARATIVES,
    "negative word": NEGATIVE_WORDS,
    "contrast": CONTRASTS,
    "condition": CONDITIONS,
    "attribution": ATTRIBUTIONS,
    "degree or time word": DEGREES,
}

_WORDS = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*|\d")
_DIGIT = re.compile(r"\d")
# One table, one pattern: first_meaningful runs on every omission the locator checks.
_CLASS_OF: dict[str, str] = {}
for _name, _words in reversed(MEANINGFUL_CLASSES.items()):
    _CLASS_OF.update(dict.fromkeys(_words, _name))  # the first class named wins
_PHRASE = re.compile(
    r"\b(?:" + "|".join(r"\s+".join(map(re.escape, p.split())) for p in NEGATIVE_PHRASES) + r")\b"
)
_SYMBOL = re.compile("[" + re.escape(SYMBOLS) + "]")
_DEGREE_PHRASE = re.compile(
    r"\b(?:" + "|".join(r"\s+".join(map(re.escape, p.split())) for p in DEGREE_PHRASES) + r")\b"
)
_SO_CALLED = re.compile(r"\bso[\s\-\u2010\u2011]*called\b")
_CLASS_ENDINGS = ("n't", "n’t", "less", "'ll", "’ll", "'d", "’d")
_CLASS_STARTS = (*NEGATIVE_PREFIXES, "n'", "n’")  # "un-", "non-", French "n'"


def is_reference(span: str) -> bool:
    """Whether ``span`` is only a reference a bracket may spell out: "it", "they", "this",
    "the former"."""
    words = span.lower().split()
    if not words:
        return False
    if words[-1] in REFERENCE_TAILS:
        head = words[:-1]
        return bool(head) and head[-1] in DETERMINERS and all(w in REFERENCES for w in head)
    return all(w in REFERENCES or w in REFERENCES_OTHER for w in words)


def determiner_for_more(content: str, got: str) -> bool:
    """Whether a bracket of determiners alone ("[the]", "[this]") stands for more than one
    determiner of the source: "[the]" for "the fake" or "a retracted" leaves words out."""
    words = content.lower().split()
    if not words or not all(w in DETERMINERS for w in words):
        return False
    said = got.lower().split()
    return not (len(said) == 1 and said[0] in _ONE_DETERMINER)


def is_negation(word: str) -> bool:
    """Whether ``word`` is of the negation class (``word_class``), at a set look-up's cost: a
    quote's edges are checked with it on every quote found."""
    w = word.lower()
    if w in NEGATIONS:
        return True
    if "'" not in w and "\u2019" not in w:
        return False
    w = w.replace("\u2019", "'")
    return w.endswith("n't") or (w.startswith("n'") and len(w) > 3)


def word_class(word: str) -> str | None:
    """Which meaning-carrying class ``word`` belongs to ("negation", "number", ...), if any."""
    w = word.lower().replace("’", "'")
    cls = _CLASS_OF.get(w)
    if cls is not None:
        return cls
    if _DIGIT.search(w):
        return "number"
    if w.endswith("n't") or (w.startswith("n'") and len(w) > 3):
        return "negation"  # "can't"; French "n'était", "n'ont"
    if w.endswith(("'ll", "'d")) and len(w) >= 3:
        return "modal"  # "we'd", "that'll": would, will (or had: an auxiliary all the same)
    if w.endswith("less") and len(w) > 6:
        return "negative word"  # "useless", "regardless"
    for p in NEGATIVE_PREFIXES:
        if w.startswith(p) and len(w) >= len(p) + 4 and not w.startswith(_NOT_PREFIXED):
            return "negative word"
    return None


def first_meaningful(text: str) -> tuple[str, str] | None:
    """The first number, symbol or listed word of ``text`` and its class, or None (a listed
    phrase first, then a symbol, then a word). It runs on every omission the locator checks:
    one table look-up per word, ``word_class`` only where a cheap test says it may matter."""
    low = text.lower()
    m = _PHRASE.search(low)
    if m:
        return " ".join(m.group().split()), "negative word"
    m = _DEGREE_PHRASE.search(low)
    if m:
        return " ".join(m.group().split()), "degree or time word"
    if "called" in low:
        m = _SO_CALLED.search(low)
        if m:
            return m.group(), "degree or time word"  # "so-called": the source's distance
    m = _SYMBOL.search(text)
    if m:
        return m.group(), "symbol"
    get = _CLASS_OF.get
    for w in _WORDS.findall(text):
        lw = w.lower()
        cls = get(lw)
        if cls is None and (
            lw[0].isdigit() or lw.endswith(_CLASS_ENDINGS) or lw.startswith(_CLASS_STARTS)
        ):
            cls = word_class(lw)  # the cheap test says it may be one
        if cls is not None:
            return w, cls
    return None


_CLAUSE_JOINT = re.compile(
    # a clause joined on (", and the remaining bits"), or a second verb whose object the quote
    # goes on with ("tossed … his hard drive" of "tossed a notebook … and lodged his hard drive")
    r";|,\s*(?:and|or|nor|but|yet|so|while|whereas)\b|\b(?:and|or)\s+[^\W\d_]+\W*$"
    # or the words after the gap are the other half of an "or" ("call for help or … some
    # casualties might have been reported")
    r"|\b(?:or|nor)\W*$",
    re.IGNORECASE,
)


def clause_joint(omitted: str) -> str | None:
    """Where omitted words join two clauses (";", ", and …", a final "and lodged"): the words
    after such a gap belong to another clause, with another subject or object."""
    m = _CLAUSE_JOINT.search(omitted)
    return " ".join(m.group().split()) if m else None


# What may stand between a verb of saying and the quote it frames: whom it was said to, and
# when ("told us", "told reporters on Monday", "said last year", "pointed out").
SAID_TO_OR_WHEN = _wordset(
    """
    us me him her them you reporters journalists lawmakers investigators out yesterday today
    tonight last this next week month year on in at earlier recently again monday tuesday
    wednesday thursday friday saturday sunday
    """
)
# ... and the words after which such a verb is an adjective: "the expected value", "as hoped".
NOT_A_VERB_AFTER = _wordset("the a an this that these those his her its their our my your as")
# The source speaking of itself: an assertive verb it says ("we pointed out that") frames its
# own claim.
FIRST_PERSON = _wordset("we i us our my")
# The frames of each language a source may be in (locate.language tells which from the text
# around the quote): the words that make what a cut leaves of a sentence someone's report, a
# case of a condition, one side of an alternative or a part, read by context.py's
# other-language and extra English rules (docs/editorial-marks.md, "The sentence a quote is
# cut from"). A role a language lacks is empty. English adds to the lists above only what
# they miss ("told us", "vowed that", "make sure", "pointed out that").
FRAME_ROLES = (
    "condition",  # a fronted or trailing condition: "Falls …,", "… si elle estime"
    "when",  # a time that may be a condition: refused right after a quote, not after a comma
    "exception",  # a fronted or trailing exception: "…, sauf cas d'urgence"
    "attribution",  # a fronted source: "Selon …,", "Según …,"
    "saying",  # a verb of saying or stance before the quote, with or without "that"
    "complementizer",  # the "that" of a report: "que", "dass"
    "quantifier",  # a part: "muchos", "la plupart des"
    "hedge",  # a hedging adverb right before the clause: "vielleicht", "quizás"
    "consequent",  # the "then" of an "If …, then …"
    "either",  # the first of a pair of alternatives ("o … o …", "soit … soit")
    "or",  # the second
    "limit",  # a focus limit whose scope runs to its clause's end: "only", "nur"
    "connective",  # a sentence's opening word that opens no frame: "mais", "aber"
    "coordinator",  # a word that starts a new clause after a quote: "and", "et", "und"
    "concession",  # a concession after a comma that may hold a limit: "although", "aunque"
    "assertive",  # a verb of saying that presents what follows as true (English only)
)
_FRAMES_BY_LANGUAGE: dict[str, dict[str, str]] = {
    "en": {
        "condition": "if unless whether provided providing assuming lest",
        "when": "when once",
        "exception": "except excluding barring",
        "attribution": "according",
        "saying": """
            vowed vow vows pledged pledge pledges promised promise promises swore swear
            swears pointed observed observes remarked remarks stressed stresses emphasized
            emphasised emphasizes emphasises conceded concedes reiterated reiterates
            assured assures reminded reminds informed informs cautioned cautions recalled
            recalls sure ensure ensures ensured ensuring doubt doubts doubted imagine
            imagines imagined suppose supposes supposed guess guessed bet bets expect
            expects expected want wants wanted wish wishes wished hope hoping pretend
            pretends pretended shocked surprised convinced
            """,
        # ... of them, those that present what follows as true: said by the source itself
        # ("we pointed out that", "as noted above") they frame its own claim
        "assertive": """
            pointed noted observed observes stressed emphasized emphasised reiterated remarked
            recalled conceded acknowledged admitted mentioned shown showed described discussed
            explained stated
            """,
        "complementizer": "that whether",
        "quantifier": "",
        "hedge": "",
        "consequent": "then",
        "either": "either",
        "or": "or",
        "limit": "only solely merely exclusively",
        "connective": "and but so yet indeed however also then now still thus hence",
        "coordinator": "and or but nor yet so",
        "concession": "although though but",
    },
    "fr": {
        "condition": "si pourvu",
        "when": "lorsque quand",
        "exception": "sauf excepté hormis",
        "attribution": "selon",
        "saying": """
            dit disent dira disait disaient affirme affirment affirmait affirmé indique
            indiquent indiquait indiqué précise précisent précisait précisé déclare
            déclarent déclarait déclaré explique expliquent expliquait expliqué estime
            estiment estimait estimé pense pensent pensait croit croient croyait craint
            craignent craignait craignaient redoute redoutent souligne soulignent souligné
            assure assurent assurait assuré rapporte rapportent rapporté ajoute ajoutent
            ajouté juge jugent jugeait admet admettent reconnaît reconnaissent reconnu
            prétend prétendent soutient soutiennent espère espèrent espérait suggère
            suggèrent annonce annoncent annoncé confirme confirment confirmé considère
            considèrent affirmant estimant craignant rappelle rappellent avance avancent
            arguant argue arguent soulignant expliquant précisant indiquant assurant
            jugeant considérant déclarant rappelant
            """,
        "complementizer": "que qu",
        "quantifier": "plupart certains certaines quelques beaucoup plusieurs peu majorité",
        "hedge": "probablement apparemment vraisemblablement",
        "consequent": "alors",
        "either": "soit ou",
        "or": "soit ou",
        "limit": "seulement uniquement exclusivement",
        "connective": "mais et donc or pourtant cependant ainsi puis",
        "coordinator": "et ou mais ni",
        "concession": "bien quoique mais",
    },
    "es": {
        "condition": "si siempre",
        "when": "cuando mientras",
        "exception": "salvo excepto menos",
        "attribution": "según",
        "saying": """
            dice dicen dijo dijeron decía decían asegura aseguran aseguró aseguraron
            aseguraba aseguraban afirma afirman afirmó afirmaron afirmaba declara declaran
            declaró declararon indica indican indicó explica explican explicó señala señalan
            señaló cree creen creía creían piensa piensan pensaba opina opinan estima
            estiman teme temen temía temían sostiene sostienen sostuvo advierte advierten
            advirtió añade añadió agrega agregó considera consideran consideraba reconoce
            reconoció insiste insistió
            """,
        "complementizer": "que",
        "quantifier": "muchos muchas algunos algunas pocos pocas varios varias mayoría",
        "hedge": "quizás quizá probablemente posiblemente aparentemente supuestamente",
        "consequent": "entonces",
        "either": "o u",
        "or": "o u",
        "limit": "solo sólo solamente únicamente exclusivamente",
        "connective": "pero y así entonces además",
        "coordinator": "y e o u pero ni",
        "concession": "aunque pero",
    },
    "pt": {
        "condition": "se caso",
        "when": "quando",
        "exception": "salvo exceto excepto",
        "attribution": "segundo conforme",
        "saying": """
            diz dizem disse disseram dizia afirma afirmam afirmou afirmaram afirmava
            declara declaram declarou declararam indica indicam indicou explica explicam
            explicou acredita acreditam acreditava pensa pensam pensava entendo entende
            entendem entendia considera consideram considerava teme temem temia garante
            garantem garantiu alega alegam alegou sustenta sustentam afirmando assegura
            asseguram assegurou
            """,
        "complementizer": "que",
        "quantifier": "muitos muitas alguns algumas poucos poucas vários várias maioria",
        "hedge": "talvez provavelmente possivelmente aparentemente supostamente",
        "consequent": "então",
        "either": "ou",
        "or": "ou",
        "limit": "só somente apenas unicamente exclusivamente",
        "connective": "mas e assim então além porém",
        "coordinator": "e ou mas nem",
        "concession": "embora mas",
    },
    "de": {
        "condition": "wenn falls sofern solange ob",
        "when": "sobald",
        "exception": "außer ausgenommen",
        "attribution": "laut zufolge",
        "saying": """
            sagt sagen sagte sagten erklärt erklären erklärte erklärten meint meinen meinte
            meinten glaubt glauben glaubte behauptet behaupten behauptete betont betonen
            betonte berichtet berichten berichtete fürchtet fürchten fürchtete befürchtet
            befürchten hofft hoffen hoffte schreibt schreiben schrieb warnt warnen warnte
            vermutet vermuten vermutete versichert versicherte
            """,
        "complementizer": "dass daß ob",
        "quantifier": "viele einige manche wenige meisten mehrere",
        "hedge": "vielleicht wahrscheinlich möglicherweise angeblich vermutlich",
        "consequent": "dann so",
        "either": "entweder",
        "or": "oder",
        "limit": "nur lediglich ausschließlich",
        "connective": "aber und doch also jedoch dann",
        "coordinator": "und oder aber sondern",
        "concession": "obwohl obgleich aber",
    },
    "it": {
        "condition": "se qualora purché",
        "when": "quando",
        "exception": "salvo tranne eccetto",
        "attribution": "secondo",
        "saying": """
            dice dicono disse dissero afferma affermano affermò crede credono pensa pensano
            teme temono sostiene sostengono spiega spiegano spiegò
            """,
        "complementizer": "che",
        "quantifier": "molti molte alcuni alcune pochi poche parecchi maggioranza",
        "hedge": "forse probabilmente",
        "consequent": "allora",
        "either": "o",
        "or": "o",
        "limit": "solo soltanto solamente esclusivamente",
        "connective": "ma e così quindi però",
        "coordinator": "e o ma né",
        "concession": "sebbene benché ma",
    },
}
FRAMES: dict[str, dict[str, frozenset[str]]] = {
    lang: {role: _wordset(words) for role, words in roles.items()}
    for lang, roles in _FRAMES_BY_LANGUAGE.items()
}
# Words that tell a text's language: frequent there, rare in the others (locate.language);
# a word two languages share ("la", "que", "de") counts for both, and their own words decide.
LANGUAGE_MARKERS: dict[str, frozenset[str]] = {
    "en": _wordset("the of and to is that it for was with are this be by have from which"),
    "fr": _wordset(
        "le les des et est une du qui dans pour pas sur au ne avec ce sont aux elle son ses cette "
        "la que de"
    ),
    "es": _wordset("el los las del y una con para es por lo como pero más sus al fue la que de"),
    "pt": _wordset("os do da dos das não em uma com para é ao pelo pela mas foi são que de"),
    "de": _wordset("der die das und ist nicht mit von zu den dem ein eine sich auf für im"),
    "it": _wordset("il di che della del sono non per gli una nel alla è dei delle la"),
}
