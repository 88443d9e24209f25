"""The inline CSS and JavaScript of the HTML report (no network, no external files).

The script reads the figures from the page's ``<script type="application/json">`` block,
draws the heat map on a ``<canvas>`` (one rectangle per run of equal cells, so 2,000 turns
x 550 entries stay cheap), draws the recursion graph of the chosen turn as SVG, and sorts
the entry table (on a click, or on load from ``#sort=fired`` / ``#sort=-fired`` in the
URL). Any error is written into ``#errors``; ``body[data-ready]`` marks the
end and ``body[data-render-ms]`` says how long the script took.
"""

from __future__ import annotations

CSS = """
:root{--fg:#1d2330;--mute:#5b6475;--line:#d8dce4;--bg:#fff;--panel:#f6f7f9;
--key:#2f6fd6;--rec:#8a4fd8;--con:#2e9e6b;--sti:#d98a1c;--dec:#c2417f;--for:#1aa3b8;
--cut:#d64545;--grp:#9aa3b2;--pro:#e8b4b4;--coo:#b7c7e8;--del:#c9c0a8}
*{box-sizing:border-box}
body{margin:0;font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
color:var(--fg);background:var(--bg)}
header,section{padding:12px 20px}
header{background:var(--panel);border-bottom:1px solid var(--line)}
h1{font-size:20px;margin:0 0 6px}
h2{font-size:16px;margin:0 0 8px}
.facts{display:flex;flex-wrap:wrap;gap:8px 20px;margin:0;padding:0;list-style:none}
.facts b{font-size:18px;display:block}
.legend{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:12px;color:var(--mute);margin:6px 0}
.legend i{display:inline-block;width:11px;height:11px;margin-right:4px;vertical-align:-1px}
.scroll{overflow:auto;max-height:72vh;border:1px solid var(--line);position:relative}
#heat{display:block;image-rendering:pixelated;cursor:crosshair}
#tip{position:fixed;pointer-events:none;background:#1d2330;color:#fff;padding:4px 8px;
border-radius:4px;font-size:12px;display:none;z-index:3;max-width:420px}
#bars{width:100%;height:130px;display:block;border:1px solid var(--line);background:#fff}
.bar{fill:var(--key)}.bar.over{fill:var(--cut)}.budget{stroke:#1d2330;stroke-dasharray:4 3}
#graph{width:100%;border:1px solid var(--line);background:#fff}
#graph .node rect{fill:#eef3fc;stroke:var(--key)}
#graph .node.recursion rect{fill:#f3ecfd;stroke:var(--rec)}
#graph .node.constant rect{fill:#eaf7f0;stroke:var(--con)}
#graph .node.sticky rect{fill:#fdf4e6;stroke:var(--sti)}
#graph text{font-size:11px}
#graph .edge{stroke:var(--rec);fill:none;stroke-width:1.4}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{padding:3px 8px;border-bottom:1px solid var(--line);text-align:left;white-space:nowrap}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
th{position:sticky;top:0;background:var(--panel);cursor:pointer;user-select:none}
th[aria-sort=ascending]::after{content:" \\25B2"}th[aria-sort=descending]::after{content:" \\25BC"}
tr.never td:first-child{color:var(--cut)}tr.disabled{color:var(--mute)}
#errors{color:#fff;background:var(--cut);padding:8px 20px;white-space:pre-wrap}
.controls{margin:0 0 8px;display:flex;gap:8px;align-items:center;flex-wrap:wrap}
input[type=number]{width:7em}
@media (max-width:700px){header,section{padding:10px}.facts b{font-size:16px}}
"""

JS = r"""
(function(){
"use strict";
var errors=document.getElementById("errors");
function fail(msg){errors.hidden=false;errors.textContent+=msg+"\n";}
window.addEventListener("error",function(e){fail("error: "+e.message);});
var COLORS={k:"--key",r:"--rec",c:"--con",s:"--sti",d:"--dec",f:"--for",
B:"--cut",G:"--grp",P:"--pro",C:"--coo",D:"--del"};
var NAMES={k:"fired: key",r:"fired: recursion",c:"fired: constant",s:"fired: sticky",
d:"fired: @@activate",f:"fired: activation source",B:"cut: budget",G:"cut: group",
P:"cut: probability",C:"cut: cooldown",D:"cut: delay",".":"-"};
var HOW={k:"key",r:"recursion",c:"constant",s:"sticky",d:"decorator",f:"forced"};
function css(name){return getComputedStyle(document.documentElement).getPropertyValue(name).trim();}
function runs(s){var out=[],re=/(\d+)(\D)/g,m;while((m=re.exec(s))){out.push([+m[1],m[2]]);}return out;}
function heat(D){
  var cv=document.getElementById("heat"),box=cv.parentNode,T=D.turns.length,E=D.entries.length;
  var rh=E>120?3:E>40?8:16,gut=rh>=8?240:0;
  var avail=Math.max(200,box.clientWidth-2-gut);
  var cw=Math.max(1,Math.min(40,Math.floor(avail/Math.max(1,T))));
  cv.width=Math.max(1,gut+T*cw);cv.height=Math.max(1,E*rh);
  var g=cv.getContext("2d"),cells=0,pal={};
  Object.keys(COLORS).forEach(function(k){pal[k]=css(COLORS[k]);});
  g.fillStyle="#f1f3f6";g.fillRect(gut,0,cv.width-gut,cv.height);
  if(gut){g.fillStyle=css("--fg");g.font=(rh>12?12:10)+"px system-ui,sans-serif";g.textBaseline="middle";
    D.entries.forEach(function(en,y){var t=en[1];if(t.length>34){t=t.slice(0,33)+"\u2026";}
      g.fillText(t,4,y*rh+rh/2,gut-8);});}
  D.rows.forEach(function(row,y){var x=0;runs(row).forEach(function(r){
    if(r[1]!=="."){g.fillStyle=pal[r[1]];g.fillRect(gut+x*cw,y*rh,r[0]*cw-(cw>4?1:0),rh-(rh>4?1:0));cells+=1;}
    x+=r[0];});});
  var decoded=D.rows.map(function(row){var s="";runs(row).forEach(function(r){s+=r[1].repeat(r[0]);});return s;});
  var tip=document.getElementById("tip");
  function at(ev){var b=cv.getBoundingClientRect();
    return [Math.floor((ev.clientX-b.left-gut)/cw),Math.floor((ev.clientY-b.top)/rh)];}
  cv.addEventListener("mousemove",function(ev){var p=at(ev),t=p[0],e=p[1];
    if(t<0||t>=T||e<0||e>=E){tip.style.display="none";return;}
    var tr=D.turns[t];tip.textContent="turn "+t+" ("+tr[0]+" #"+tr[1]+") \u00b7 "+
      D.entries[e][1]+" \u00b7 "+NAMES[decoded[e][t]];
    tip.style.display="block";tip.style.left=(ev.clientX+14)+"px";tip.style.top=(ev.clientY+12)+"px";});
  cv.addEventListener("mouseleave",function(){tip.style.display="none";});
  cv.addEventListener("click",function(ev){var t=at(ev)[0];if(t>=0&&t<T){pick.value=t;graph(D,t);}});
  cv.dataset.runs=String(cells);
}
var SVG="http://www.w3.org/2000/svg";
function el(name,attrs,parent){var n=document.createElementNS(SVG,name);
  Object.keys(attrs).forEach(function(k){n.setAttribute(k,attrs[k]);});if(parent){parent.appendChild(n);}return n;}
var pick=document.getElementById("turn");
function graph(D,t){
  var svg=document.getElementById("graph"),fired=D.fired[t]||[],loops={},pos={},W=230,H=26;
  while(svg.firstChild){svg.removeChild(svg.firstChild);}
  var defs=el("defs",{},svg),mk=el("marker",{id:"arrow",viewBox:"0 0 8 8",refX:"8",refY:"4",
    markerWidth:"7",markerHeight:"7",orient:"auto"},defs);
  el("path",{d:"M0,0L8,4L0,8z",fill:css("--rec")},mk);
  var shown=fired.slice(0,400),maxRow=0;
  shown.forEach(function(f){var l=f[1];loops[l]=(loops[l]||0)+1;
    pos[f[0]]=[(l-1)*(W+60)+10,(loops[l]-1)*(H+8)+24];maxRow=Math.max(maxRow,loops[l]);});
  var cols=Object.keys(loops).map(Number);
  var width=Math.max(400,(Math.max.apply(null,cols.concat([1])))*(W+60));
  svg.setAttribute("viewBox","0 0 "+width+" "+(maxRow*(H+8)+34));
  svg.setAttribute("height",String(Math.min(900,maxRow*(H+8)+34)));
  svg.setAttribute("preserveAspectRatio","xMinYMin meet");
  cols.forEach(function(l){var tx=el("text",{x:(l-1)*(W+60)+10,y:14},svg);tx.textContent="loop "+l;});
  var edges=0;
  shown.forEach(function(f){(f[3]||[]).forEach(function(s){var a=pos[s],b=pos[f[0]];if(!a||!b){return;}
    el("path",{"class":"edge",d:"M"+(a[0]+W)+","+(a[1]+H/2)+"C"+(a[0]+W+30)+","+(a[1]+H/2)+" "+
      (b[0]-30)+","+(b[1]+H/2)+" "+b[0]+","+(b[1]+H/2),"marker-end":"url(#arrow)"},svg);edges+=1;});});
  shown.forEach(function(f){var p=pos[f[0]],how=HOW[f[2]]||"key";
    var g=el("g",{"class":"node "+how,"data-entry":D.entries[f[0]][0],transform:"translate("+p[0]+","+p[1]+")"},svg);
    el("rect",{width:W,height:H,rx:4},g);
    var tx=el("text",{x:6,y:17},g),label=D.entries[f[0]][1];
    tx.textContent=(label.length>24?label.slice(0,23)+"\u2026":label)+" \u00b7 "+how;
    var tt=el("title",{},g);tt.textContent=D.entries[f[0]][1]+" ("+how+", "+f[4]+" tokens)";});
  var tr=D.turns[t]||["",0,"",0,0,0];
  document.getElementById("graph-note").textContent="turn "+t+" ("+tr[0]+" message "+tr[1]+", "+tr[2]+
    "): "+fired.length+" fired, "+edges+" recursion link(s)"+(fired.length>shown.length?", first 400 shown":"");
  svg.dataset.nodes=String(shown.length);svg.dataset.edges=String(edges);
}
function sortable(){
  var table=document.getElementById("entries"),body=table.tBodies[0];
  Array.prototype.forEach.call(table.tHead.rows[0].cells,function(th,i){
    th.addEventListener("click",function(ev){
      var asc=ev.desc?false:th.getAttribute("aria-sort")!=="ascending",num=th.classList.contains("n");
      Array.prototype.forEach.call(th.parentNode.cells,function(c){c.removeAttribute("aria-sort");});
      th.setAttribute("aria-sort",asc?"ascending":"descending");
      var rows=Array.prototype.slice.call(body.rows);
      rows.sort(function(a,b){var x=a.cells[i].dataset.v,y=b.cells[i].dataset.v;
        var c=num?(+x)-(+y):x.localeCompare(y);return asc?c:-c;});
      var frag=document.createDocumentFragment();rows.forEach(function(r){frag.appendChild(r);});
      body.appendChild(frag);});});
  var m=/sort=(-?)([a-z-]+)/.exec(location.hash);
  if(m){var th=table.querySelector('th[data-key="'+m[2]+'"]');
    if(th){var ev=new Event("click");ev.desc=m[1]==="-";th.dispatchEvent(ev);}}
}
try{
  var t0=performance.now();
  var D=JSON.parse(document.getElementById("data").textContent);
  heat(D);sortable();
  pick.max=String(Math.max(0,D.turns.length-1));pick.value=String(D.turn);
  pick.addEventListener("change",function(){var t=Math.max(0,Math.min(D.turns.length-1,+pick.value||0));graph(D,t);});
  graph(D,D.turn);
  document.body.dataset.renderMs=String(Math.round(performance.now()-t0));
  document.body.dataset.ready="1";
}catch(e){fail("error: "+(e&&e.stack||e));}
})();
"""
