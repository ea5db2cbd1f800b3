// The table's page: the live board from the host's replica over a WebSocket,
// the open question with big buttons, a player's own hand, hints, takebacks,
// a new game. Every text from the board or the record goes in with
// textContent: never as markup.
"use strict";

const WORDS = {
  en: {
    lang: "Français", table: "the table", watch: "spectator", seat: "player {0}",
    connected: "live", lost: "board lost: reconnecting", offline: "page offline: reconnecting",
    outofstep: "catching up with the board", nogame: "No game on the board yet: start one below.",
    toMove: "{0} to move", chance: "Now: {0}", over: "Game over",
    youToMove: "Your turn ({0})", player: "player {0}", you: "you",
    south: "south", north: "north",
    wins: "{0} wins!", win: "{0} win!", draw: "A draw: nobody wins.", scores: "Scores: {0}",
    lastMoves: "Last moves", noMoves: "no move yet", bust: "{0}: a bust! over 7, back to the raft",
    hint: "Hint", undo: "Take back", newGame: "New game", start: "Start", cancel: "Cancel",
    hintFor: "Hint for {0}: {1}",
    qMove: "Which move was made?", qDecide: "{0} decides", qDecideYou: "Your choice ({0})",
    qChance: "What came up on the table?",
    qHidden: "A move the board cannot see: which one?", qPrivate: "{0} chooses on their own phone",
    qOther: "Waiting for {0} to answer", qAnswerHere: "Answer here or with NEXT/OK on the board.",
    qNotHere: "This page does not answer it: {0} does, on their page, the table's page or the board.",
    qNotHereTable: "This page does not answer it: {0} does, on their own phone.",
    qWatch: "You are watching: the players answer.",
    qAbove: "Answer the question above.",
    yourHand: "Your hand", yourColour: "Your secret turtle: {0}", colourUnknown: "Your colour is dealt soon.",
    playCard: "Play a card:", waitTurn: "Wait for your turn to play.",
    seatOut: "Player {0} is not in this game ({1} players): this page watches it, and plays from the next game with player {0}.",
    take: "take off", put: "put on", flip: "turn over", dest: "may go to",
    litWords: "Lit on the board: {0}", boardSays: "The board: {0}",
    drawn: "a card is drawn", drawnMany: "{0} cards are drawn", dealt: "the colours are dealt", egg: "an egg card is turned up",
    dice: "turtle {0}: dice {1}", decider: "{0} decides for it", faceup: "egg card face up: {0}",
    none: "none", pile: "{0} egg cards in the pile", cards: "{0}: {1} cards face down",
    ownCards: "{0}: cards {1} = {2} eggs", nest: "{0} owns the nest (+7)",
    lastCard: "last card: {0}", piles: "draw pile {0}, played pile {1}", colours: "colours: {0}",
    handSizes: "cards in hand: {0}", phase: "phase: {0}, turn {1}", reserve: "reserve: south {0}, north {1}",
    pending: "powers to resolve: {0}",
    // what chance decides now (the engine's chance actions, by their first word)
    chanceKinds: { d: "a die is rolled", e: "an egg card is turned up", draw: "a card is drawn",
      stack: "the turtles are stacked on the start", colour: "the colours are told",
      show: "a dead hand is shown", other: "chance decides" },
    errors: {
      watch: "This link only watches the game: a player's link can play.",
      rate: "Too many commands at once: wait a moment.",
      turn: "Not yours: this is for another player.", closed: "That question is over.",
      link: "The board is not connected: nothing was sent.",
      undo: "Only your own last move can be taken back here; the table's page can take back any.",
    },
    labels: { game: "game", players: "players", dice: "dice", cards: "cards", seat: "player {0}" },
    values: {
      "a person": "a person", "the board, easy": "the board, easy", "the board, good": "the board, good",
      "the PC": "this PC", electronic: "electronic (the board rolls)", physical: "real dice and cards",
      "dealt by the board, each hand on its player's phone": "dealt by the board: each hand on its player's phone",
      "real cards in the players' hands": "real cards in the players' hands",
    },
    games: { mahe: "Mahé", race: "The Turtle Race", tortuga: "Tortuga", tattoo: "Tattoo Turtles", hatching: "Hatching Day" },
    choice: {
      cancel: "none of these", takeback: "take back the last move", roll: "roll again",
      stop: "stop: the turtle moves", first: "turtle {0} moves first", card: "play egg card {0} as a die",
      die: "the die shows {0}", egg: "egg card {0}", join: "the turtle joins {0}", done: "no more turtles",
      put: "put turtles on {0}", give: "give up the turtle on {0}", jump: "jump {0}", move: "move {0} to {1}",
      colour: "{0} is {1}", stack: "{0} next on the start stack", draw: "card drawn: {0}",
      discard: "no card fits: show the hand, draw five", show: "card shown: {0}",
      tattoo: "the {0} tattoo on {1}", power: "{0} ({1})", born: ": a new turtle on {0}",
    },
    powers: { L: "Life", E: "Exchange", I: "Immortality", C: "Contamination" },
    colourNames: { red: "red", yellow: "yellow", green: "green", blue: "blue", purple: "purple" },
    // Tortuga's phases (the engine's PHASE_NAMES)
    phases: { setup: "setting up", play: "a move", powers: "powers", giving: "giving a turtle",
      team: "choosing a team", chain: "a jump chain", placing: "placing turtles" },
    // a Race card: its turtle, then how far (the card's arrows)
    cardNames: { any: "rainbow", last: "the last", on: "{0}, on {1}" },
  },
  fr: {
    lang: "English", table: "la table", watch: "spectateur", seat: "joueur {0}",
    connected: "en direct", lost: "plateau perdu : reconnexion", offline: "page hors ligne : reconnexion",
    outofstep: "mise à jour avec le plateau", nogame: "Pas encore de partie sur le plateau : lancez-en une ci-dessous.",
    toMove: "À {0} de jouer", chance: "Maintenant : {0}", over: "Partie terminée",
    youToMove: "À vous de jouer ({0})", player: "joueur {0}", you: "vous",
    south: "sud", north: "nord",
    wins: "{0} gagne !", win: "{0} gagnent !", draw: "Égalité : personne ne gagne.", scores: "Scores : {0}",
    lastMoves: "Derniers coups", noMoves: "aucun coup pour l'instant", bust: "{0} : plus de 7 ! retour au radeau",
    hint: "Conseil", undo: "Annuler le coup", newGame: "Nouvelle partie", start: "Commencer", cancel: "Annuler",
    hintFor: "Conseil pour {0} : {1}",
    qMove: "Quel coup a été joué ?", qDecide: "{0} décide", qDecideYou: "À vous de choisir ({0})",
    qChance: "Qu'est-ce qui est sorti sur la table ?",
    qHidden: "Un coup que le plateau ne voit pas : lequel ?", qPrivate: "{0} choisit sur son téléphone",
    qOther: "On attend la réponse de {0}", qAnswerHere: "Répondez ici ou avec les boutons NEXT (suivant) et OK du plateau.",
    qNotHere: "Cette page n'y répond pas : {0} y répond, sur sa page, la page de la table ou le plateau.",
    qNotHereTable: "Cette page n'y répond pas : {0} y répond, sur son propre téléphone.",
    qWatch: "Vous regardez : les joueurs répondent.",
    qAbove: "Répondez à la question ci-dessus.",
    yourHand: "Votre main", yourColour: "Votre tortue secrète : {0}", colourUnknown: "Votre couleur sera bientôt distribuée.",
    playCard: "Jouez une carte :", waitTurn: "Attendez votre tour pour jouer.",
    seatOut: "Le joueur {0} n'est pas dans cette partie ({1} joueurs) : cette page la regarde, et jouera dès la prochaine partie avec le joueur {0}.",
    take: "retirer", put: "poser", flip: "retourner", dest: "peut aller en",
    litWords: "Allumé sur le plateau : {0}", boardSays: "Le plateau : {0}",
    drawn: "une carte est piochée", drawnMany: "{0} cartes sont piochées", dealt: "les couleurs sont distribuées", egg: "une carte œuf est retournée",
    dice: "tortue {0} : dés {1}", decider: "{0} décide pour elle", faceup: "carte œuf visible : {0}",
    none: "aucune", pile: "{0} cartes œuf dans la pioche", cards: "{0} : {1} cartes face cachée",
    ownCards: "{0} : cartes {1} = {2} œufs", nest: "{0} a le nid (+7)",
    lastCard: "dernière carte : {0}", piles: "pioche {0}, défausse {1}", colours: "couleurs : {0}",
    handSizes: "cartes en main : {0}", phase: "phase : {0}, tour {1}", reserve: "réserve : sud {0}, nord {1}",
    pending: "pouvoirs à résoudre : {0}",
    chanceKinds: { d: "un dé est lancé", e: "une carte œuf est retournée", draw: "une carte est piochée",
      stack: "les tortues sont empilées au départ", colour: "les couleurs sont annoncées",
      show: "une main morte est montrée", other: "le hasard décide" },
    errors: {
      watch: "Ce lien permet seulement de regarder : le lien d'un joueur permet de jouer.",
      rate: "Trop de commandes d'un coup : attendez un instant.",
      turn: "Pas pour vous : c'est pour un autre joueur.", closed: "Cette question est terminée.",
      link: "Le plateau n'est pas connecté : rien n'a été envoyé.",
      undo: "Seul votre propre dernier coup peut être annulé ici ; la page de la table peut tout annuler.",
      bad: "Cette commande n'a pas été comprise : rien n'a été envoyé.",
    },
    // the board's refusals, by its error code (docs/protocol.md); the English page shows its own words
    boardErrors: {
      refused: "Le plateau refuse : pas maintenant.", over: "La partie est finie : lancez-en une nouvelle.",
      illegal: "Le plateau refuse : ce n'est pas permis maintenant.", "no-game": "Pas de partie : lancez-en une.",
      "no-prompt": "Aucune question n'est ouverte.", "bad-payload": "Le plateau n'a pas compris la commande.",
      "bad-notation": "Le plateau n'a pas compris la commande.", "bad-setup": "Le plateau ne peut pas lancer cette partie.",
      selftest: "Un auto-test du plateau est en cours : la partie attend qu'il finisse.",
      log: "Le journal de partie du plateau ne peut pas être écrit : rien n'a été fait.",
      other: "Le plateau a refusé la commande.",
    },
    // ... and its few reasons with words of their own
    boardReasons: {
      "nothing to undo: the game is at its start": "Rien à annuler : la partie commence.",
      "nothing to undo: the board drew every action so far itself, and would draw the same again":
        "Rien à annuler : le plateau a tiré lui-même tout ce qui a été joué, et tirerait la même chose.",
      "no hint: the board plays the Turtle Race with real cards: it does not know the hand a hint would play from":
        "Pas de conseil : le plateau joue la Course avec de vraies cartes ; il ne connaît pas la main d'où jouerait un conseil.",
      "no hint: chance decides now (a die or a card), not a player": "Pas de conseil : le hasard décide maintenant (un dé ou une carte), pas un joueur.",
      "no hint: the computer is to move, not a person": "Pas de conseil : c'est à l'ordinateur de jouer, pas à une personne.",
      "no hint: the game is over; start a new one with `new`": "Pas de conseil : la partie est finie ; lancez-en une nouvelle.",
    },
    labels: { game: "jeu", players: "joueurs", dice: "dés", cards: "cartes", seat: "joueur {0}",
      "egg dice": "cartes œuf comme dés", "open colours": "couleurs choisies ouvertement", start: "départ",
      "turn limit": "limite de tours", tattoo: "tatouages" },
    values: {
      "a person": "une personne", "the board, easy": "le plateau, facile", "the board, good": "le plateau, fort",
      "the PC": "cet ordinateur", electronic: "électroniques (le plateau lance)", physical: "vrais dés et cartes",
      "dealt by the board, each hand on its player's phone": "distribuées par le plateau : chaque main sur le téléphone de son joueur",
      "real cards in the players' hands": "vraies cartes en main",
      stacked: "en pile", "side by side": "côte à côte", no: "non", "yes: egg cards as dice": "oui : cartes œuf comme dés",
      "no: dealt secretly": "non : distribuées en secret", "yes: chosen openly": "oui : choisies ouvertement",
      "no limit": "sans limite",
    },
    // values with a number in them (turtleboard/mirror/newgame.py value_words)
    valuePatterns: [
      [/^a draw after (\d+) turns$/, (m) => "match nul après " + m[1] + " tours"],
      [/^(\d+) tattooed turtles? each$/, (m) => m[1] + (m[1] === "1" ? " tortue tatouée" : " tortues tatouées") + " chacun"],
    ],
    games: { mahe: "Mahé", race: "La Course des Tortues", tortuga: "Tortuga", tattoo: "Tortues tatouées", hatching: "Jour d'éclosion" },
    choice: {
      cancel: "aucun de ceux-ci", takeback: "annuler le dernier coup", roll: "relancer",
      stop: "s'arrêter : la tortue avance", first: "la tortue {0} part d'abord", card: "jouer la carte œuf {0} comme un dé",
      die: "le dé montre {0}", egg: "carte œuf {0}", join: "la tortue rejoint {0}", done: "plus de tortues",
      put: "poser des tortues en {0}", give: "abandonner la tortue en {0}", jump: "sauter {0}", move: "aller de {0} à {1}",
      colour: "{0} est {1}", stack: "{0} ensuite sur la pile de départ", draw: "carte piochée : {0}",
      discard: "aucune carte ne va : montrer la main, piocher cinq", show: "carte montrée : {0}",
      tattoo: "le tatouage {0} en {1}", power: "{0} ({1})", born: " : une nouvelle tortue en {0}",
    },
    powers: { L: "Vie", E: "Échange", I: "Immortalité", C: "Contamination" },
    colourNames: { red: "rouge", yellow: "jaune", green: "verte", blue: "bleue", purple: "violette" },
    phases: { setup: "mise en place", play: "un coup", powers: "pouvoirs", giving: "don d'une tortue",
      team: "choix d'une équipe", chain: "une chaîne de sauts", placing: "pose de tortues" },
    cardNames: { any: "arc-en-ciel", last: "la dernière", on: "{0}, sur {1}" },
  },
};

// Players: a colour and a shape each, so no one needs to tell colours apart.
const SHAPES = ["●", "■", "▲", "◆", "★"];
const COLOURS = ["#d62728", "#1f77b4", "#e6c229", "#2ca02c", "#9467bd"];

let lang = pickLang();
let me = { role: "watch", seat: null };
let games = [];
let last = null;          // the last state
let ws = null;
let ground = null;        // the board under the turtles: {id, svg, svg_narrow} (sent once a game)
let errorTimer = null;
let retry = 500;

function pickLang() {
  try {
    const kept = window.localStorage.getItem("turtleboard-lang");
    if (kept === "en" || kept === "fr") return kept;
  } catch (e) { /* private mode */ }
  return (navigator.language || "en").toLowerCase().startsWith("fr") ? "fr" : "en";
}

function t(key, ...args) {
  let text = WORDS[lang][key];
  if (text === undefined) text = WORDS.en[key] || key;
  return fill(text, args);
}

function fill(text, args) {
  return String(text).replace(/\{(\d)\}/g, (m, i) => (args[i] === undefined ? "" : String(args[i])));
}

function $(id) { return document.getElementById(id); }

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

function who(p, game, plain) {
  if (p === null || p === undefined || p < 0) return "";
  let name = t("player", p + 1);
  if (game && game.name === "tortuga") name += " (" + t(p === 0 ? "south" : "north") + ")";
  if (!plain && me.role === "seat" && me.seat === p) name += " — " + t("you");
  return SHAPES[p % SHAPES.length] + " " + name;
}

// "a: b", with French's space before the colon.
function said(a, b) { return a + (lang === "fr" ? " : " : ": ") + b; }

// A Race card (the engine's notation: red++, *-, ^^, and played: *+blue, ^green)
// in words: the turtle it moves and how far, as its arrows say.
function cardWords(text) {
  const names = WORDS[lang].cardNames;
  const m = /^(red|yellow|green|blue|purple|\*|\^{1,2}|↑{1,2})(\+\+|\+|-)?(\w+)?$/.exec(String(text));
  if (!m) return null;
  const arrow = m[1][0] === "^" || m[1][0] === "↑";
  let turtle;
  let steps;
  if (m[1] === "*") { turtle = names.any; steps = m[2]; }
  else if (arrow) { turtle = names.last; steps = m[1].length === 1 ? "+" : "++"; }
  else { turtle = colourWord(m[1]); steps = m[2]; }
  if (!steps || (arrow && m[2])) return null;
  const words = turtle + " " + { "++": "+2", "+": "+1", "-": "−1" }[steps];
  return m[3] ? fill(names.on, [words, colourWord(m[3])]) : words;
}

function colourWord(c) { return WORDS[lang].colourNames[c] || c; }

// A question's choice or a move (the engine's notation) in words, or null.
function choiceWords(game, text) {
  const c = WORDS[lang].choice;
  const s = String(text);
  let w = null;
  let m;
  if (s === "cancel") w = c.cancel;
  else if (s === "takeback") w = c.takeback;
  else if (game.name === "mahe") {
    if (s === "roll") w = c.roll;
    else if (s === "stop") w = c.stop;
    else if ((m = /^first-(.+)$/.exec(s))) w = fill(c.first, [m[1]]);
    else if ((m = /^card(\d+)$/.exec(s))) w = fill(c.card, [m[1]]);
    else if ((m = /^d(\d+)$/.exec(s))) w = fill(c.die, [m[1]]);
    else if ((m = /^e(\d+)$/.exec(s))) w = fill(c.egg, [m[1]]);
  } else if (game.name === "tortuga") {
    if ((m = /^=([SN])$/.exec(s))) w = fill(c.join, [who(m[1] === "S" ? 0 : 1, game)]);
    else if (s === "done") w = c.done;
    else if ((m = /^([LEIC])@([a-g]\d)$/.exec(s))) w = fill(c.tattoo, [WORDS[lang].powers[m[1]], m[2]]);
    else if ((m = /^([LEIC])([a-g]\d)(?:\+([a-g]\d))?$/.exec(s))) {
      w = fill(c.power, [WORDS[lang].powers[m[1]], m[2]]) + (m[3] ? fill(c.born, [m[3]]) : "");
    }
    else if (s[0] === "+") w = fill(c.put, [s.slice(1).split(",").join(", ")]);
    else if (s.startsWith("give:")) w = fill(c.give, [s.slice(5)]);
    else if (s.includes("x")) w = fill(c.jump, [s.split("x").map((h) => h.split("=")[0]).join(" → ")]);
    else if ((m = /^([^-]+)-(.+)$/.exec(s))) w = fill(c.move, [m[1], m[2]]);
  } else if (game.name === "race") {
    if ((m = /^colour (\d) (\w+)$/.exec(s))) w = fill(c.colour, [who(+m[1], game, true), colourWord(m[2])]);
    else if ((m = /^stack (\w+)$/.exec(s))) w = fill(c.stack, [colourWord(m[1])]);
    else if ((m = /^draw (.+)$/.exec(s))) w = fill(c.draw, [m[1]]);
    else if ((m = /^show (.+)$/.exec(s))) w = fill(c.show, [cardWords(m[1]) || m[1]]);
    else if (s === "discard") w = c.discard;
    else w = cardWords(s);
  }
  return w;
}

function choiceText(game, text) { return choiceWords(game, text) || String(text); }

// A move in the list: in words, but a Tortuga move between cells as written
// (a1-b2, c3xe3: what the players see on the board).
function moveText(game, text) {
  if (game.name === "tortuga" && /^[a-z]\d/.test(text)) return text;
  return choiceText(game, text);
}

// The board's status line and questions (its own English words, a fixed set:
// firmware/controller/) in the page's language.
const LEVEL_FR = { random: "au hasard", easy: "facile", good: "fort", best: "le plus fort" };
const CHANCE_FR = {
  "which value came up (a die, an egg card)?": "quelle valeur est sortie (un dé, une carte œuf) ?",
  "what is on the table (the start stack bottom first, a card shown, a player's colour)?":
    "qu'y a-t-il sur la table (la pile de départ depuis le bas, une carte montrée, la couleur d'un joueur) ?",
  "what happened?": "que s'est-il passé ?",
  "what came up?": "qu'est-ce qui est sorti ?",
};
const STATUS_FR = [
  [/^player (\d) to move$/, (m) => "au joueur " + m[1] + " de jouer"],
  [/^player (\d) to move \(the computer played (.+)\)$/, (m) => "au joueur " + m[1] + " de jouer (l'ordinateur a joué " + moveWords(m[2]) + ")"],
  [/^the game is over$/, () => "la partie est finie"],
  [/^no game: start one from the host$/, () => "pas de partie : lancez-en une depuis l'ordinateur"],
  [/^waiting for the board to settle$/, () => "on attend que le plateau soit stable"],
  [/^put the turtle on a lit cell$/, () => "posez la tortue sur une case allumée"],
  [/^put the pieces where the lights show$/, () => "placez les pièces comme les lumières l'indiquent"],
  [/^a bust \(the dice went over 7\): put the pieces where the lights show$/,
    () => "plus de 7 aux dés : placez les pièces comme les lumières l'indiquent"],
  [/^that is no legal move: change the lit cells$/, () => "ce coup n'est pas permis : changez les cases allumées"],
  [/^player (\d): the computer \((.+)\) is thinking$/, (m) => "joueur " + m[1] + " : l'ordinateur (" + (LEVEL_FR[m[2]] || m[2]) + ") réfléchit"],
  [/^player (\d): the computer on the host is thinking$/, (m) => "joueur " + m[1] + " : l'ordinateur du PC réfléchit"],
  [/^player (\d): the computer waits after the takeback; OK lets it play$/,
    (m) => "joueur " + m[1] + " : l'ordinateur attend après le coup annulé ; OK le laisse jouer"],
  [/^the computer plays (.+): make its move as lit$/, (m) => "l'ordinateur joue " + moveWords(m[1]) + " : faites son coup comme allumé"],
  [/^hint for player (\d): (.+)$/, (m) => "conseil pour le joueur " + m[1] + " : " + moveWords(m[2])],
  [/^player (\d) decides: NEXT shows the next choice, OK confirms$/,
    (m) => "le joueur " + m[1] + " décide : NEXT montre le choix suivant, OK confirme"],
  [/^which move was it\? NEXT shows the next, OK confirms$/, () => "quel coup était-ce ? NEXT montre le suivant, OK confirme"],
  [/^moved onto a stack\? OK confirms \(NEXT: the next choice\); else put the turtle down$/,
    () => "posée sur une pile ? OK confirme (NEXT : le choix suivant) ; sinon posez la tortue"],
  [/^take back the last move\? OK takes it back; else put the turtle down$/,
    () => "annuler le dernier coup ? OK l'annule ; sinon posez la tortue"],
  [/^which move was made\? the last choice cancels$/, () => "quel coup a été joué ? le dernier choix annule"],
  [/^(.+\?) NEXT shows the next, OK confirms$/,
    (m) => (CHANCE_FR[m[1]] || m[1]) + " NEXT montre le suivant, OK confirme"],
];

// The board's sentences that name a move (in notation), in English with the move in words.
const STATUS_EN = [
  [/^(player \d to move \(the computer played )(.+)(\))$/, (m) => m[1] + moveWords(m[2]) + m[3]],
  [/^(the computer plays )(.+)(: make its move as lit)$/, (m) => m[1] + moveWords(m[2]) + m[3]],
  [/^(hint for player \d: )(.+)$/, (m) => m[1] + moveWords(m[2])],
];

// A move the board names, in words (the game on the page says which words).
function moveWords(text) { return last && last.game ? choiceText(last.game, text) : text; }

function statusWords(text) {
  if (!text) return "";
  for (const [re, words] of lang === "fr" ? STATUS_FR : STATUS_EN) {
    const m = re.exec(text);
    if (m) return words(m);
  }
  return text;
}

// ---- the connection ----------------------------------------------------------

function connect() {
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  ws = new WebSocket(scheme + location.host + location.pathname.replace(/\/?$/, "/") + "ws?lang=" + lang);
  ws.onopen = () => { retry = 500; };
  ws.onmessage = (ev) => {
    let msg;
    try { msg = JSON.parse(ev.data); } catch (e) { return; }
    if (msg.t === "hello") { me = { role: msg.role, seat: msg.seat }; games = msg.games || []; showRole(); buildNewGame(); }
    else if (msg.t === "state") { last = msg; draw(msg); }
    else if (msg.t === "ground") { ground = msg; if (last && last.game) drawBoard(last.game); }
    else if (msg.t === "error") showError(msg);
    else if (msg.t === "hint") showHint(msg);
  };
  ws.onclose = () => {
    setLink(t("offline"), true);
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 5000);
  };
}

function send(obj) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(obj));
  else showError({ code: "link", msg: "" });
}

function showError(msg) {
  const box = $("error");
  box.textContent = errorWords(msg);
  box.hidden = false;
  clearTimeout(errorTimer);
  errorTimer = setTimeout(() => { box.hidden = true; }, 8000);
}

// An error in the page's language: the page's own by code; the board's
// refusal as the board says it, or on a French page by its code.
function errorWords(msg) {
  const words = WORDS[lang];
  if (msg.code !== "board") return words.errors[msg.code] || msg.msg || "";
  if (lang === "en") return msg.msg || "";
  const reason = words.boardReasons[msg.msg];
  return reason || words.boardErrors[msg.board] || words.boardErrors.other;
}

function showHint(msg) {
  const box = $("hinttext");
  const g = last && last.game;
  box.textContent = t("hintFor", who(msg.player, g), g ? choiceText(g, msg.text) : msg.text);
  box.hidden = false;
}

function setLink(text, bad) {
  const b = $("link");
  b.textContent = text;
  b.className = "badge" + (bad ? " bad" : "");
}

// ---- drawing -----------------------------------------------------------------

function showRole() {
  const name = me.role === "seat" ? t("seat", me.seat + 1) : t(me.role);
  $("who").textContent = me.role === "seat" ? SHAPES[me.seat % SHAPES.length] + " " + name : name;
  $("tools").hidden = me.role === "watch";
}

function staticWords() {
  document.documentElement.lang = lang;
  $("lang").textContent = t("lang");
  $("hintbtn").textContent = t("hint");
  $("undobtn").textContent = t("undo");
  $("newbtn").textContent = t("newGame");
  $("startbtn").textContent = t("start");
  $("cancelbtn").textContent = t("cancel");
  $("newtitle").textContent = t("newGame");
  $("movestitle").textContent = t("lastMoves");
  $("handtitle").textContent = t("yourHand");
}

function draw(s) {
  showRole();
  setLink(s.link !== "connected" ? t("lost") : (s.in_step ? t("connected") : t("outofstep")), s.link !== "connected");
  const g = s.game;
  $("title").textContent = g ? (WORDS[lang].games[g.variant || g.name] || g.title) : "Turtleboard";
  if (!g) {
    $("turn").textContent = t("nogame");
    for (const id of ["ask", "hand", "result", "hinttext", "seatout"]) $(id).hidden = true;
    clear($("facts")); clear($("moves")); $("status").textContent = ""; $("litwords").textContent = "";
    showPicture("board", null);
    showPicture("pieces", null);
    draw.key = null;
    return;
  }
  drawBoard(g);
  drawTurn(g);
  $("seatout").hidden = !g.seat_out;  // a seat of the board outside this game
  $("seatout").textContent = g.seat_out ? t("seatOut", me.seat + 1, g.players) : "";
  // the question, hand, facts and moves are built again only when they can
  // have changed: not for the LEDs and status that follow a move
  const { svg, svg_narrow, lit, expect, status, ...rest } = g;
  const key = lang + JSON.stringify(me) + JSON.stringify(rest);
  if (key !== draw.key) {
    draw.key = key;
    drawAsk(g);
    drawHand(g);
    drawFacts(g);
    drawMoves(g);
  }
  const said = g.prompt ? "" : statusWords(g.status);
  $("status").textContent = said ? t("boardSays", said) : "";
  if (g.n !== (draw.n || 0)) $("hinttext").hidden = true;
  draw.n = g.n;
  const race = g.dealt;
  $("hintbtn").disabled = g.over || (race && me.seat !== g.to_move);
  $("undobtn").disabled = g.n === 0;
}

// An SVG text shown as an image (the picture can run nothing); redrawn only
// when it changed.
const shown = {};
function showPicture(id, svg) {
  const was = shown[id] || {};
  if (svg === (was.svg || null)) return;
  if (svg) {
    const url = URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" }));
    $(id).src = url;
    shown[id] = { svg: svg, url: url };
  } else {
    $(id).removeAttribute("src");
    shown[id] = {};
  }
  if (was.url) URL.revokeObjectURL(was.url);
}

// A phone held upright: the Race's track in two rows, twice as large.
const UPRIGHT = window.matchMedia("(max-width: 599px)");

// The board is two pictures, one over the other: the ground (cells and their
// words, sent once a game) and the pieces (turtles, lit cells, marks: each
// state's), so a move sends and redraws only the small upper one.
function drawBoard(g) {
  const upright = UPRIGHT.matches;
  const base = ground && ground.id === g.ground ? ground : null;  // (its own, not yet here: none)
  showPicture("board", base && (base.svg_narrow && upright ? base.svg_narrow : base.svg));
  showPicture("pieces", g.svg_narrow && upright ? g.svg_narrow : g.svg);
  $("board").alt = g.title;
  const parts = [];
  for (const key of ["off", "on", "flip", "dest"]) {
    const cells = (g.expect || {})[key];
    if (cells && cells.length) parts.push(t({ off: "take", on: "put", flip: "flip", dest: "dest" }[key]) + " " + cells.join(", "));
  }
  if (!parts.length && g.lit && g.lit.length) parts.push(g.lit.join(", "));
  $("litwords").textContent = parts.length ? t("litWords", parts.join("; ")) : "";
}

function drawTurn(g) {
  const box = $("turn");
  if (g.over) box.textContent = t("over");
  else if (g.to_move === -1) box.textContent = t("chance", WORDS[lang].chanceKinds[g.chance] || WORDS[lang].chanceKinds.other);
  else if (me.role === "seat" && me.seat === g.to_move) box.textContent = t("youToMove", who(g.to_move, g, true));
  else box.textContent = t("toMove", who(g.to_move, g));
  box.style.borderColor = g.to_move >= 0 ? COLOURS[g.to_move % COLOURS.length] : "";
  const res = $("result");
  res.hidden = !g.result;
  if (g.result) {
    const w = g.result.winners || [];
    const names = w.map((p) => who(p, g)).join(" & ");
    let text = w.length === 0 ? t("draw") : t(w.length > 1 ? "win" : "wins", names);
    if (g.result.scores && g.result.scores.length) {
      text += " " + t("scores", g.result.scores.map((sc, p) => said(who(p, g, true), sc)).join(", "));
    }
    res.textContent = text;
  }
}

function drawAsk(g) {
  const p = g.prompt;
  const box = $("ask");
  box.hidden = !p;
  if (!p) return;
  const name = who(p.who, g);
  let title;
  if (p.kind === "chance") title = t("qChance");
  else if (!p.choices.length && p.who >= 0) title = t("qPrivate", name);
  else if (p.kind === "decide") title = p.mine && me.role === "seat" ? t("qDecideYou", who(p.who, g, true)) : t("qDecide", name);
  else if (p.kind === "hidden") title = t("qHidden");
  else title = t("qMove");
  if (p.choices.length && !p.mine) title += " — " + t("qOther", name);
  $("asktitle").textContent = title;
  const known = ["move", "decide", "chance", "hidden"].includes(p.kind);
  let how;
  if (me.role === "watch") how = t("qWatch");
  else if (!p.mine) how = t(me.role === "table" ? "qNotHereTable" : "qNotHere", name || t("table"));
  else how = known ? t("qAnswerHere") : statusWords(p.text || "");
  $("asktext").textContent = how;
  const list = $("choices");
  clear(list);
  p.choices.forEach((choice, i) => {
    const b = el("button", choiceText(g, choice), i === p.current ? "current" : "");
    b.type = "button";
    b.title = String(choice);
    b.disabled = !p.mine || me.role === "watch";
    b.dataset.choice = String(choice);
    b.addEventListener("click", () => send({ do: "answer", id: p.id, choice: i }));
    list.appendChild(b);
  });
}

function drawHand(g) {
  const v = g.view || {};
  const box = $("hand");
  const mine = me.role === "seat" && g.dealt && !g.seat_out;
  box.hidden = !mine;
  if (!mine) return;
  const colour = (v.colours || [])[me.seat];
  $("secret").textContent = colour ? t("yourColour", colourWord(colour)) : t("colourUnknown");
  const cards = $("cards");
  clear(cards);
  for (const c of v.hand || []) {
    const card = el("span", cardWords(c) || c, "card");
    const colour = /^(red|yellow|green|blue|purple)/.exec(c);
    if (colour) card.classList.add("c-" + colour[1]);
    card.title = c;
    cards.appendChild(card);
  }
  const plays = $("plays");
  clear(plays);
  if (g.legal && g.legal.length) {
    plays.appendChild(el("p", t("playCard")));
    for (const text of g.legal) {
      const b = el("button", choiceText(g, text));
      b.type = "button";
      b.title = text;
      b.dataset.play = text;
      b.addEventListener("click", () => send({ do: "play", text }));
      plays.appendChild(b);
    }
  } else if (g.prompt && g.prompt.mine && g.to_move === me.seat) {
    plays.appendChild(el("p", t("qAbove"), "quiet"));  // (the question is this player's turn)
  } else if (!g.over && g.to_move !== me.seat) {
    plays.appendChild(el("p", t("waitTurn"), "quiet"));
  }
}

function drawFacts(g) {
  const v = g.view || {};
  const out = [];
  if (g.name === "mahe") {
    if (v.dice && v.dice.length) {
      out.push(t("dice", v.mover, v.dice.join(" + ") + (v.dice.length > 1 ? " = " + v.dice.reduce((a, b) => a + b, 0) : "")));
      if (v.decider !== null && v.decider !== undefined) out.push(t("decider", who(v.decider, g, true)));
    }
    out.push(t("faceup", v.faceup || t("none")));
    out.push(t("pile", v.pile || 0));
    for (let p = 0; p < g.players; p++) {
      const values = (v.card_values || [])[p];
      if (values) out.push(t("ownCards", who(p, g), values.join("+") || "0", values.reduce((a, b) => a + b, 0)));
      else out.push(t("cards", who(p, g), (v.cards || [])[p] || 0));
    }
    if (v.nest !== null && v.nest !== undefined) out.push(t("nest", who(v.nest, g)));
  } else if (g.name === "race") {
    out.push(t("lastCard", v.last_card ? cardWords(v.last_card) || v.last_card : t("none")));
    out.push(t("piles", v.draw_pile || 0, v.played_pile || 0));
    const known = (v.colours || []).map((c, p) => (c ? who(p, g) + " " + colourWord(c) : null)).filter((x) => x);
    if (known.length) out.push(t("colours", known.join(", ")));
    if (v.hand_sizes) out.push(t("handSizes", v.hand_sizes.map((n, p) => said(who(p, g), n)).join(", ")));
  } else if (g.name === "tortuga") {
    out.push(t("phase", WORDS[lang].phases[v.phase] || v.phase, v.turns || 0));
    if (v.reserve) out.push(t("reserve", v.reserve[0], v.reserve[1]));
    if (v.pending && v.pending.length) out.push(t("pending", v.pending.join(", ")));
  }
  const list = $("facts");
  clear(list);
  for (const line of out) list.appendChild(el("li", line));
}

function drawMoves(g) {
  const list = $("moves");
  clear(list);
  if (!g.moves.length) { list.appendChild(el("li", t("noMoves"), "quiet none")); return; }
  let prev = null;
  for (const m of g.moves) {
    if (prev && m.text === null && m.kind === "draw" && prev.kind === "draw") {
      prev.count += 1;  // the cards drawn one after the other: one line
      prev.li.textContent = t("drawnMany", prev.count);
      continue;
    }
    let text = m.text === null ? t(m.kind === "colour" ? "dealt" : (m.kind === "draw" ? "drawn" : "egg")) : moveText(g, m.text);
    if (m.bust) text = t("bust", text);
    // (a colour chosen openly names its player already)
    const li = el("li", m.who >= 0 && !/^colour /.test(m.text || "") ? said(who(m.who, g), text) : text);
    li.value = m.n;
    if (m.text !== null) li.dataset.text = m.text;  // the notation, as in the record
    li.title = m.text || "";
    list.appendChild(li);
    prev = m.text === null ? { kind: m.kind, count: 1, li } : null;
  }
}

// ---- a new game ----------------------------------------------------------------

function buildNewGame() {
  const box = $("newfields");
  clear(box);
  if (!games.length) return;
  const pick = el("select");
  pick.id = "newgamekey";
  for (const g of games) {
    const o = el("option", WORDS[lang].games[g.key] || g.title);
    o.value = g.key;
    pick.appendChild(o);
  }
  pick.value = buildNewGame.key || games[0].key;
  box.appendChild(field(WORDS[lang].labels.game, pick));
  pick.addEventListener("change", () => { buildNewGame.key = pick.value; buildNewGame(); });
  const game = games.find((g) => g.key === pick.value) || games[0];
  for (const f of game.fields) {
    const s = el("select");
    s.dataset.key = f.key;
    f.values.forEach(([text, value], i) => {
      const o = el("option", valueWords(text));
      o.value = String(i);
      if (value === f.value) o.selected = true;
      s.appendChild(o);
    });
    box.appendChild(field(fieldLabel(f), s));
  }
}

// A new-game value in the page's language (a number stays as it is).
function valueWords(text) {
  const words = WORDS[lang];
  if (words.values[text]) return words.values[text];
  for (const [re, say] of words.valuePatterns || []) {
    const m = re.exec(text);
    if (m) return say(m);
  }
  return text;
}

function fieldLabel(f) {
  const L = WORDS[lang].labels;
  let m;
  if ((m = /^seat:(\d+)$/.exec(f.key))) return fill(L.seat, [m[1]]);
  return L[f.key] || L[f.label] || f.label;
}

function field(label, control) {
  const d = el("div", null, "field");
  const l = el("label", label);
  control.id = control.id || "f-" + Math.random().toString(36).slice(2);
  l.htmlFor = control.id;
  d.appendChild(l);
  d.appendChild(control);
  return d;
}

function startNewGame(ev) {
  ev.preventDefault();
  const key = $("newgamekey").value;
  const game = games.find((g) => g.key === key);
  const chosen = {};
  for (const s of $("newfields").querySelectorAll("select[data-key]")) {
    const f = game.fields.find((x) => x.key === s.dataset.key);
    chosen[f.key] = f.values[+s.value][1];
  }
  send({ do: "new", game: key, chosen });
  $("newgame").hidden = true;
}

// ---- start ----------------------------------------------------------------------

function setLang(l) {
  lang = l;
  try { window.localStorage.setItem("turtleboard-lang", l); } catch (e) { /* private mode */ }
  staticWords();
  buildNewGame();
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ do: "lang", lang: l }));
  if (last) draw(last);
}

document.addEventListener("DOMContentLoaded", () => {
  staticWords();
  $("lang").addEventListener("click", () => setLang(lang === "en" ? "fr" : "en"));
  $("hintbtn").addEventListener("click", () => send({ do: "hint" }));
  $("undobtn").addEventListener("click", () => send({ do: "undo" }));
  $("newbtn").addEventListener("click", () => { $("newgame").hidden = !$("newgame").hidden; });
  $("cancelbtn").addEventListener("click", () => { $("newgame").hidden = true; });
  $("newgame").addEventListener("submit", startNewGame);
  UPRIGHT.addEventListener("change", () => { if (last) draw(last); });
  connect();
});
